/**
 * The architecture lint (scripts/lint-architecture.ts) on small fixture trees written to a temporary
 * folder: each rule finds what it is for, and a tree that keeps the rules passes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  buildImportGraph,
  checkArchitecture,
  checkCycles,
  checkFunctionLengths,
  checkLayers,
  checkLineLengths,
  summary,
} from '../../../scripts/lint-architecture.js';

const trees: string[] = [];
afterAll(() => {
  for (const t of trees) fs.rmSync(t, { recursive: true, force: true });
});

const TSCONFIG = JSON.stringify({
  compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true },
});

/** A tree with a root tsconfig (NodeNext, as Rudder's) and web/tsconfig.json (Bundler, as the page's). */
function tree(files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'rudder-arch-'));
  trees.push(root);
  const all: Record<string, string> = {
    'package.json': JSON.stringify({ type: 'module' }),
    'tsconfig.json': TSCONFIG,
    'web/tsconfig.json': JSON.stringify({
      compilerOptions: { module: 'ESNext', moduleResolution: 'Bundler', jsx: 'react-jsx', strict: true },
    }),
    ...files,
  };
  for (const [rel, text] of Object.entries(all)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  return root;
}

describe('import cycles', () => {
  it('finds a cycle closed by a type-only import, and prints it as a path of files', () => {
    const root = tree({
      'src/gateway/core.ts': "import { intake } from './intake.js';\nexport const core = () => intake();\n",
      'src/gateway/intake.ts':
        "import type { Core } from './types.js';\nexport const intake = (c?: Core) => c;\nexport type X = 1;\n",
      'src/gateway/types.ts': "import type { X } from './intake.js';\nexport interface Core { x: X }\n",
    });
    const cycles = checkCycles(buildImportGraph(root));
    expect(cycles).toHaveLength(1);
    expect(cycles[0]!.files).toEqual(['src/gateway/intake.ts', 'src/gateway/types.ts', 'src/gateway/intake.ts']);
    expect(cycles[0]!.message).toBe(
      'import cycle: src/gateway/intake.ts -> src/gateway/types.ts -> src/gateway/intake.ts',
    );
  });

  it('finds cycles through re-exports and dynamic imports, and in web/src with its own resolution', () => {
    const root = tree({
      'src/a.ts': "export * from './b.js';\n",
      'src/b.ts': "export const b = () => import('./a.js');\n",
      // Bundler resolution: extensionless specifiers, .tsx files.
      'web/src/App.tsx': "import { list } from './List';\nexport const App = () => list;\n",
      'web/src/List.tsx': "import { App } from './App';\nexport const list = () => App;\n",
    });
    const cycles = checkCycles(buildImportGraph(root)).map((c) => c.files);
    expect(cycles).toEqual([
      ['src/a.ts', 'src/b.ts', 'src/a.ts'],
      ['web/src/App.tsx', 'web/src/List.tsx', 'web/src/App.tsx'],
    ]);
  });

  it('names every file of a larger group, beyond the shortest cycle', () => {
    const root = tree({
      'src/a.ts': "import './b.js';\nimport './c.js';\n",
      'src/b.ts': "import './a.js';\n",
      'src/c.ts': "import './d.js';\n",
      'src/d.ts': "import './a.js';\n",
    });
    const [cycle, ...rest] = checkCycles(buildImportGraph(root));
    expect(rest).toEqual([]);
    expect(cycle!.files).toEqual(['src/a.ts', 'src/b.ts', 'src/a.ts']);
    expect(cycle!.message).toContain('(the same group also holds src/c.ts, src/d.ts)');
  });

  it('passes a tree without cycles, npm packages and node: builtins included', () => {
    const root = tree({
      'src/errors.ts': 'export class E extends Error {}\n',
      'src/store/store.ts':
        "import fs from 'node:fs';\nimport { E } from '../errors.js';\nexport const s = () => [fs, E];\n",
      'src/gateway/core.ts':
        "import { s } from '../store/store.js';\nimport ts from 'typescript';\nexport { s, ts };\n",
      'web/src/main.ts': "import type { s } from '../../src/store/store.js';\nexport type S = typeof s;\n",
    });
    const graph = buildImportGraph(root);
    expect([...graph.keys()].sort()).toEqual([
      'src/errors.ts',
      'src/gateway/core.ts',
      'src/store/store.ts',
      'web/src/main.ts',
    ]);
    expect(graph.get('src/gateway/core.ts')).toEqual([
      { specifier: '../store/store.js', to: 'src/store/store.ts' },
      { specifier: 'typescript', to: undefined },
    ]);
    expect(checkCycles(graph)).toEqual([]);
    expect(checkLayers(graph)).toEqual([]);
  });
});

describe('layers', () => {
  it('reports an upward import from src/store to src/gateway, a type import too', () => {
    const root = tree({
      'src/gateway/core.ts': 'export interface Core { n: number }\n',
      'src/store/types.ts': "import type { Core } from '../gateway/core.js';\nexport type Row = Core;\n",
      'src/store/store.ts': "import type { Row } from './types.js';\nexport type R = Row;\n",
    });
    const layers = checkLayers(buildImportGraph(root));
    expect(layers.map((v) => v.files)).toEqual([['src/store/types.ts', 'src/gateway/core.ts']]);
    expect(layers[0]!.message).toMatch(/^src\/store\/types\.ts imports src\/gateway\/core\.ts/);
  });

  it('lets the floors import each other and src/errors.ts, and nothing else of the repository', () => {
    const root = tree({
      'src/errors.ts': 'export const E = 1;\n',
      'src/config/load.ts':
        "import { E } from '../errors.js';\nimport { s } from '../security/wrap.js';\nexport { E, s };\n",
      'src/security/wrap.ts': "import { o } from '../ops/log.js';\nexport const s = o;\n",
      'src/ops/log.ts': "import { r } from '../store/rows.js';\nexport const o = r;\n",
      'src/store/rows.ts': "import { a } from '../agents/args.js';\nexport const r = a;\n",
      'src/agents/args.ts': 'export const a = 1;\n',
    });
    const layers = checkLayers(buildImportGraph(root));
    expect(layers.map((v) => v.files)).toEqual([['src/store/rows.ts', 'src/agents/args.ts']]);
  });

  it('reports a channel importing the gateway or the HTTP layer, and lets it import its own floors', () => {
    const root = tree({
      'src/gateway/core.ts': 'export const core = 1;\n',
      'src/http/routes.ts': 'export const routes = 1;\n',
      'src/store/types.ts': 'export type Row = 1;\n',
      'src/channels/web/api.ts':
        "import { core } from '../../gateway/core.js';\nimport type { Row } from '../../store/types.js';\n" +
        'export const api = (r: Row) => [core, r];\n',
      'src/channels/telegram/channel.ts': "export const t = () => import('../../http/routes.js');\n",
    });
    const layers = checkLayers(buildImportGraph(root));
    expect(layers.map((v) => v.files)).toEqual([
      ['src/channels/telegram/channel.ts', 'src/http/routes.ts'],
      ['src/channels/web/api.ts', 'src/gateway/core.ts'],
    ]);
  });
});

describe('lengths', () => {
  const lines = (n: number) => Array.from({ length: n }, (_, i) => `export const v${i} = ${i};`).join('\n') + '\n';

  /** A function of n lines, first to last, with its declaration written as given. */
  const fn = (head: string, n: number, tail = '}') =>
    [head, ...Array.from({ length: n - 2 }, (_, i) => `  const v${i} = ${i};`), tail].join('\n') + '\n';

  it('reports a 61-line function anywhere in src/, not a 60-line one, generated code or code outside src/', () => {
    const root = tree({
      'src/gateway/lane/start.ts': `// a comment above is not counted\n${fn('export function start(): void {', 61)}`,
      'src/gateway/lane/fits.ts': fn('export function fits(): void {', 60),
      'src/agents/long.ts': fn('export function long(): void {', 90),
      'src/agents/codex/protocol/generated/types.ts': fn('export function made(): void {', 90),
      'bench/long.ts': fn('export function bench(): void {', 90),
    });
    const long = checkFunctionLengths(root);
    expect(long.map((v) => v.files[0])).toEqual(['src/agents/long.ts', 'src/gateway/lane/start.ts']);
    expect(long[1]!.message).toBe('src/gateway/lane/start.ts:2 start has 61 lines (at most 60 a function in src)');
  });

  it('counts methods, constructors, accessors and arrow functions, each on its own, nested ones too', () => {
    const method = fn('  pump(): void {', 61, '  }').replace(/\n$/, '');
    const root = tree({
      'src/gateway/lane/lane.ts':
        'export class Lane {\n' +
        `${fn('  constructor() {', 62, '  }')}${fn('  get depth(): number {', 63, '    return 0;\n  }')}` +
        `${method}\n}\n` +
        `export const later = () => {\n${fn('  const inner = () => {', 64, '  };')}};\n` +
        `export const table = { run: ${fn('function () {', 65)}};\n`,
    });
    expect(checkFunctionLengths(root).map((v) => v.message.replace(/ \(at most.*$/, ''))).toEqual([
      'src/gateway/lane/lane.ts:2 constructor has 62 lines',
      'src/gateway/lane/lane.ts:64 depth has 64 lines',
      'src/gateway/lane/lane.ts:128 pump has 61 lines',
      'src/gateway/lane/lane.ts:190 later has 66 lines',
      'src/gateway/lane/lane.ts:191 inner has 64 lines',
      'src/gateway/lane/lane.ts:256 run has 65 lines',
    ]);
  });

  it('reports a 121-character line, not a 120-character one, counting characters rather than bytes', () => {
    const root = tree({
      'src/a.ts': `const a = 1;\n// ${'x'.repeat(118)}\n// ${'y'.repeat(117)}\n`,
      'web/src/b.css': `/* ${'…'.repeat(114)} */\n`,
      'tests/c.test.ts': `\n\n'${'é'.repeat(119)}'\n`,
      'tests/fixtures/pane.txt': `${'z'.repeat(300)}\n`,
      'bench/results/2026-01-01.md': `${'z'.repeat(300)}\n`,
      'bench/d.ts': `${'w'.repeat(120)}\r\n`,
    });
    const long = checkLineLengths(root);
    expect(long.map((v) => v.message)).toEqual([
      'src/a.ts:2 has 121 characters (at most 120)',
      'tests/c.test.ts:3 has 121 characters (at most 120)',
    ]);
  });

  it('counts every rule in the summary, and a clean tree is clean', () => {
    const dirty = tree({
      'src/gateway/a.ts': "import './b.js';\n" + lines(300),
      'src/gateway/b.ts': `import './a.js';\n// ${'x'.repeat(130)}\n`,
      'src/gateway/lane/c.ts': fn('export function c(): void {', 61),
      'src/store/s.ts': "import '../gateway/a.js';\n",
    });
    expect(summary(checkArchitecture(dirty))).toBe(
      'architecture: 1 cycles, 1 layer imports, 1 long functions, 1 long lines',
    );
    const clean = tree({ 'src/gateway/a.ts': "import '../store/s.js';\n", 'src/store/s.ts': 'export {};\n' });
    expect(checkArchitecture(clean)).toEqual([]);
  });
});
