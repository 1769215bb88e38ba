declare const self: ServiceWorkerGlobalScope;
const SHELL = "__PRECACHE__" as unknown as { version: string; files: string[] };
self.addEventListener('install', () => console.log(SHELL.version));
export {};
