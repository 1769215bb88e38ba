export * from './output.js';
export * from './input.js';
export * from './parse.js';
