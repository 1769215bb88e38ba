/** Rudder's version, from package.json. */
import { createRequire } from 'node:module';

export const VERSION = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;
