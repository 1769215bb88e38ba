export * from './input.js';
export * from './output.js';
export * from './parse.js';
