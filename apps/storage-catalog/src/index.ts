export { startStorageCatalog } from './storage-catalog.service.js';
