export { startSystem, type RunningSystem } from './system.js';
