export { startGateway, type RunningGateway } from './gateway.service.js';
