export const STORAGE_CONTEXT = Symbol('STORAGE_CONTEXT');
