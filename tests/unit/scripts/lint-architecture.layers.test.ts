/**
 * The layers around start-up (scripts/lint-architecture.ts LAYER_RULES): the gateway imports nothing
 * of the HTTP layer, the command line or src/app; the HTTP layer nothing of the command line or
 * src/app; src/app, above both, builds them. On a fixture tree, then on the repository itself.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { buildImportGraph, checkLayers } from '../../../scripts/lint-architecture.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const trees: string[] = [];
afterAll(() => {
  for (const t of trees) fs.rmSync(t, { recursive: true, force: true });
});

function tree(files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'rudder-layers-'));
  trees.push(root);
  const compilerOptions = { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true };
  const all = {
    'package.json': JSON.stringify({ type: 'module' }),
    'tsconfig.json': JSON.stringify({ compilerOptions }),
    ...files,
  };
  for (const [rel, text] of Object.entries(all)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  return root;
}

const START_UP = /start-up lives above the gateway|never starts it/;

describe('the start-up layers', () => {
  it('reports the gateway importing the HTTP layer, the command line or src/app, a type import too', () => {
    const root = tree({
      'src/http/server.ts': 'export class HttpServer {}\n',
      'src/cli/qr.ts': 'export const qr = 1;\n',
      'src/app/start.ts': 'export const start = 1;\n',
      'src/gateway/gateway.ts':
        "import type { HttpServer } from '../http/server.js';\nimport { qr } from '../cli/qr.js';\n" +
        "export const g = (h?: HttpServer) => [h, qr, import('../app/start.js')];\n",
    });
    const layers = checkLayers(buildImportGraph(root));
    expect(layers.map((v) => v.files)).toEqual([
      ['src/gateway/gateway.ts', 'src/http/server.ts'],
      ['src/gateway/gateway.ts', 'src/cli/qr.ts'],
      ['src/gateway/gateway.ts', 'src/app/start.ts'],
    ]);
    for (const v of layers) expect(v.message).toMatch(START_UP);
  });

  it('reports the HTTP layer importing the command line or src/app, and lets it import the gateway', () => {
    const root = tree({
      'src/gateway/api/api.ts': 'export const api = 1;\n',
      'src/cli/client.ts': 'export const call = 1;\n',
      'src/app/start.ts': 'export const start = 1;\n',
      'src/http/server.ts':
        "import { api } from '../gateway/api/api.js';\nimport { call } from '../cli/client.js';\n" +
        "import { start } from '../app/start.js';\nexport const s = [api, call, start];\n",
    });
    const layers = checkLayers(buildImportGraph(root));
    expect(layers.map((v) => v.files)).toEqual([
      ['src/http/server.ts', 'src/cli/client.ts'],
      ['src/http/server.ts', 'src/app/start.ts'],
    ]);
  });

  it('lets src/app build the gateway, the page server and the QR, and the command line call it', () => {
    const root = tree({
      'src/gateway/gateway.ts': 'export const build = 1;\n',
      'src/http/server.ts': "import { build } from '../gateway/gateway.js';\nexport const server = build;\n",
      'src/app/qr.ts': 'export const qr = 1;\n',
      'src/app/start.ts':
        "import { build } from '../gateway/gateway.js';\nimport { server } from '../http/server.js';\n" +
        "import { qr } from './qr.js';\nexport const start = [build, server, qr];\n",
      'src/cli/start.ts': "export const run = () => import('../app/start.js');\n",
    });
    expect(checkLayers(buildImportGraph(root))).toEqual([]);
  });

  it('holds in the repository: no file of src/gateway or src/http imports what starts them', () => {
    const graph = buildImportGraph(ROOT);
    expect(checkLayers(graph).filter((v) => START_UP.test(v.message))).toEqual([]);
    // src/app is where start-up lives: it builds both.
    const app = (graph.get('src/app/start.ts') ?? []).map((e) => e.to);
    expect(app).toEqual(expect.arrayContaining(['src/gateway/gateway.ts', 'src/http/server.ts']));
  });
});
