export * from './methods.js';
export * from './parse.js';
export * from './wire.js';
