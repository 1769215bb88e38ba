/**
 * The architecture rules `npm run lint` checks beside Biome (run: `tsx scripts/lint-architecture.ts`):
 *   - no import cycle in src/ or web/src, type imports, re-exports and dynamic imports included;
 *   - layers: src/config, src/security, src/store and src/ops import only from those four and
 *     src/errors.ts (and node: and npm packages); nothing in src/channels or src/nodes imports src/gateway or
 *     src/http;
 *   - no function, method, arrow function or accessor longer than 60 lines (from its first line to its
 *     last) in src/ (generated protocol types aside): a file may be as long as its one concept needs;
 *   - no line over 120 characters in src/, web/src, tests/ and bench/ (fixtures and results aside).
 * The import graph comes from the TypeScript compiler (ts.preProcessFile finds every import,
 * ts.resolveModuleName resolves it with the options of the file's own tsconfig), so it sees what tsc sees;
 * functions are found in the compiler's syntax tree (ts.createSourceFile) the same way.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export interface Violation {
  rule: 'cycle' | 'layer' | 'function-length' | 'line-length';
  /** Repository-relative paths, '/'-separated: a cycle's files in order, or the file and what it imports. */
  files: string[];
  /** One line that says what is wrong. */
  message: string;
}

/** A folder of sources and the tsconfig whose compiler options resolve their imports. */
export interface Project {
  dir: string;
  tsconfig: string;
}

export interface ImportEdge {
  /** As written in the source. */
  specifier: string;
  /** Repository-relative target; undefined for npm packages and node: builtins. */
  to: string | undefined;
}

/** Every analysed file (repository-relative) and what it imports, in source order. */
export type ImportGraph = Map<string, ImportEdge[]>;

export interface LayerRule {
  /** The files the rule is about: folders or single files. */
  from: string[];
  /** When given, the only places they may import from (in-repository imports only). */
  allowed?: string[];
  /** Places they must not import from. */
  forbidden?: string[];
  /** Says the rule, for the report. */
  why: string;
}

export const PROJECTS: Project[] = [
  { dir: 'src', tsconfig: 'tsconfig.json' },
  { dir: 'web/src', tsconfig: 'web/tsconfig.json' },
];

const FLOORS = ['src/config', 'src/security', 'src/store', 'src/ops'];

export const LAYER_RULES: LayerRule[] = [
  {
    from: FLOORS,
    allowed: [...FLOORS, 'src/errors.ts'],
    why: 'src/config, src/security, src/store and src/ops import only from those four and src/errors.ts',
  },
  {
    from: ['src/channels'],
    forbidden: ['src/gateway', 'src/http'],
    why: 'nothing in src/channels imports src/gateway or src/http',
  },
  {
    from: ['src/nodes'],
    forbidden: ['src/gateway', 'src/http'],
    why: 'nothing in src/nodes imports src/gateway or src/http (a node runs agents, never the gateway)',
  },
  {
    from: ['src/gateway'],
    forbidden: ['src/http', 'src/cli', 'src/app'],
    why: 'nothing in src/gateway imports src/http, src/cli or src/app (start-up lives above the gateway, in src/app)',
  },
  {
    from: ['src/http'],
    forbidden: ['src/cli', 'src/app'],
    why: 'nothing in src/http imports src/cli or src/app (the HTTP layer serves the gateway, never starts it)',
  },
  {
    from: ['src/agents'],
    forbidden: ['src/projects', 'src/nodes', 'src/gateway', 'src/app', 'src/http', 'src/cli', 'src/channels'],
    why:
      'nothing in src/agents imports src/projects, src/nodes, src/gateway, src/app, src/http, src/cli or ' +
      'src/channels (they are given what an agent needs)',
  },
];

/** Where the function-length rule applies: all of src/, but the protocol types codex generates. */
export const FUNCTION_LENGTH_DIRS = ['src'];
export const FUNCTION_LENGTH_EXCLUDED = ['src/agents/codex/protocol/generated'];
export const MAX_FUNCTION_LINES = 60;

export const LINE_DIRS = ['src', 'web/src', 'tests', 'bench'];
/**
 * Data, reports and generated code: a captured pane, a benchmark's results and the protocol types
 * `codex app-server generate-ts` writes keep their own lines.
 */
export const LINE_EXCLUDED = ['tests/fixtures', 'bench/results', 'src/agents/codex/protocol/generated'];
export const MAX_LINE_CHARS = 120;

const SOURCE_EXT = /\.(ts|tsx|mts|cts)$/;

const toPosix = (p: string) => p.split(path.sep).join('/');
const under = (file: string, place: string) => file === place || file.startsWith(`${place}/`);
const underAny = (file: string, places: string[]) => places.some((p) => under(file, p));

/**
 * The files under dir (repository-relative, sorted). In a git work tree: tracked and untracked files
 * that .gitignore does not exclude (a benchmark's report.md is not code); elsewhere, every file but
 * node_modules.
 */
export function listFiles(root: string, dir: string): string[] {
  const abs = path.join(root, dir);
  if (!fs.existsSync(abs)) return [];
  const run = (args: string[]) =>
    execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  let listed: string[] | undefined;
  try {
    // Only when root is the top of a work tree: a fixture tree in a temporary folder is walked.
    if (fs.realpathSync(run(['rev-parse', '--show-toplevel']).trim()) === fs.realpathSync(root))
      listed = run(['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--', dir]).split('\0');
  } catch {
    listed = undefined; // not a git work tree, or no git
  }
  const files = listed?.filter(Boolean) ?? walk(root, dir);
  return [...new Set(files.map(toPosix))]
    .filter((f) => fs.statSync(path.join(root, f), { throwIfNoEntry: false })?.isFile())
    .sort();
}

function walk(root: string, dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== '.git') out.push(...walk(root, rel));
    } else if (entry.isFile()) out.push(rel);
  }
  return out;
}

function compilerOptions(root: string, tsconfig: string): ts.CompilerOptions {
  const file = path.join(root, tsconfig);
  const read = ts.readConfigFile(file, ts.sys.readFile);
  if (read.error) {
    const why = ts.flattenDiagnosticMessageText(read.error.messageText, '\n');
    throw new Error(`${tsconfig}: ${why} (each project's tsconfig resolves its imports)`);
  }
  return ts.parseJsonConfigFileContent(read.config, ts.sys, path.dirname(file), undefined, file).options;
}

/** The import graph of the projects' source files, each resolved with its own project's options. */
export function buildImportGraph(root: string, projects: Project[] = PROJECTS): ImportGraph {
  const graph: ImportGraph = new Map();
  const absRoot = path.resolve(root);
  const repoPath = (abs: string): string | undefined => {
    const rel = toPosix(path.relative(absRoot, abs));
    return rel.startsWith('../') || path.isAbsolute(rel) || rel.split('/').includes('node_modules') ? undefined : rel;
  };
  for (const project of projects) {
    const files = listFiles(root, project.dir).filter((f) => SOURCE_EXT.test(f));
    if (!files.length) continue;
    const options = compilerOptions(root, project.tsconfig);
    const cache = ts.createModuleResolutionCache(absRoot, (f) => f, options);
    for (const file of files) {
      const abs = path.join(absRoot, file);
      const mode = ts.getImpliedNodeFormatForFile(abs, cache.getPackageJsonInfoCache(), ts.sys, options);
      const edges: ImportEdge[] = [];
      for (const imported of ts.preProcessFile(fs.readFileSync(abs, 'utf8'), true, true).importedFiles) {
        const specifier = imported.fileName;
        const resolved = ts.resolveModuleName(specifier, abs, options, ts.sys, cache, undefined, mode).resolvedModule;
        let to: string | undefined;
        if (resolved) to = resolved.isExternalLibraryImport ? undefined : repoPath(resolved.resolvedFileName);
        // tsc reports an unresolved relative import; the layers still see where it points.
        else if (specifier.startsWith('.')) to = repoPath(path.resolve(path.dirname(abs), specifier));
        edges.push({ specifier, to });
      }
      graph.set(file, edges);
    }
  }
  return graph;
}

/**
 * The import cycles: one per strongly connected group of files (Tarjan), as the shortest path from
 * the group's first file (by name) back to itself. A group larger than that path has more cycles.
 */
export function findCycles(graph: ImportGraph): Array<{ path: string[]; group: string[] }> {
  const targets = (f: string): string[] => {
    const to = (graph.get(f) ?? []).flatMap((e) => (e.to !== undefined && graph.has(e.to) ? [e.to] : []));
    return [...new Set(to)];
  };
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  let next = 0;
  const connect = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of targets(v)) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      group.push(w);
    } while (w !== v);
    if (group.length > 1 || targets(v).includes(v)) groups.push(group.sort());
  };
  for (const f of [...graph.keys()].sort()) if (!index.has(f)) connect(f);
  return groups
    .map((group) => ({ path: shortestCycle(group[0]!, new Set(group), targets), group }))
    .sort((a, b) => a.group[0]!.localeCompare(b.group[0]!));
}

function shortestCycle(start: string, group: Set<string>, targets: (f: string) => string[]): string[] {
  const cameFrom = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const v = queue[i]!;
    for (const w of targets(v)) {
      if (!group.has(w)) continue;
      if (w === start) {
        const chain = [v];
        while (chain[0] !== start) chain.unshift(cameFrom.get(chain[0]!)!);
        return [...chain, start];
      }
      if (!cameFrom.has(w)) {
        cameFrom.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start, start];
}

export function checkCycles(graph: ImportGraph): Violation[] {
  return findCycles(graph).map(({ path: cycle, group }) => {
    const others = group.filter((f) => !cycle.includes(f));
    return {
      rule: 'cycle',
      files: cycle,
      message:
        `import cycle: ${cycle.join(' -> ')}` +
        (others.length ? ` (the same group also holds ${others.join(', ')})` : ''),
    };
  });
}

/** Each import that breaks a layer rule, once per importing file and target. */
export function checkLayers(graph: ImportGraph, rules: LayerRule[] = LAYER_RULES): Violation[] {
  const out: Violation[] = [];
  for (const [file, edges] of [...graph].sort(([a], [b]) => a.localeCompare(b))) {
    for (const rule of rules) {
      if (!underAny(file, rule.from)) continue;
      const seen = new Set<string>();
      for (const { to, specifier } of edges) {
        if (to === undefined || seen.has(to)) continue;
        const wrong = (rule.allowed && !underAny(to, rule.allowed)) || (rule.forbidden && underAny(to, rule.forbidden));
        if (!wrong) continue;
        seen.add(to);
        out.push({ rule: 'layer', files: [file, to], message: `${file} imports ${to} ('${specifier}'): ${rule.why}` });
      }
    }
  }
  return out;
}

const linesOf = (text: string) => {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
};

type FunctionLike =
  | ts.FunctionDeclaration
  | ts.FunctionExpression
  | ts.ArrowFunction
  | ts.MethodDeclaration
  | ts.ConstructorDeclaration
  | ts.GetAccessorDeclaration
  | ts.SetAccessorDeclaration;

function isFunctionLike(node: ts.Node): node is FunctionLike {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isFunctionExpression(node) ||
    ts.isArrowFunction(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node)
  );
}

/** A function's name as a reader finds it: its own, the variable or property it is assigned to, or what it is. */
function functionName(node: FunctionLike, sf: ts.SourceFile): string {
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const named = node.name ?? (ts.isVariableDeclaration(node.parent) ? node.parent.name : undefined);
  const owner =
    ts.isPropertyAssignment(node.parent) || ts.isPropertyDeclaration(node.parent) ? node.parent.name : undefined;
  const name = named ?? owner;
  if (name) return name.getText(sf);
  return ts.isArrowFunction(node) ? 'an arrow function' : 'a function';
}

/** Every function with a body longer than max lines, counted from its declaration's first line to its last. */
export function checkFunctionLengths(
  root: string,
  dirs = FUNCTION_LENGTH_DIRS,
  max = MAX_FUNCTION_LINES,
  excluded = FUNCTION_LENGTH_EXCLUDED,
): Violation[] {
  const out: Violation[] = [];
  for (const dir of dirs)
    for (const file of listFiles(root, dir).filter((f) => SOURCE_EXT.test(f) && !underAny(f, excluded))) {
      const text = fs.readFileSync(path.join(root, file), 'utf8');
      const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
      const visit = (node: ts.Node): void => {
        if (isFunctionLike(node) && node.body) {
          const first = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
          const n = sf.getLineAndCharacterOfPosition(node.getEnd()).line - first + 1;
          if (n > max)
            out.push({
              rule: 'function-length',
              files: [file],
              message:
                `${file}:${first + 1} ${functionName(node, sf)} has ${n} lines ` +
                `(at most ${max} a function in ${dirs.join(' and ')})`,
            });
        }
        ts.forEachChild(node, visit);
      };
      visit(sf);
    }
  return out;
}

/** Lines longer than max characters (code points, so "…" is one), in every text file of the dirs. */
export function checkLineLengths(
  root: string,
  dirs = LINE_DIRS,
  excluded = LINE_EXCLUDED,
  max = MAX_LINE_CHARS,
): Violation[] {
  const out: Violation[] = [];
  for (const dir of dirs)
    for (const file of listFiles(root, dir)) {
      if (underAny(file, excluded)) continue;
      const bytes = fs.readFileSync(path.join(root, file));
      if (bytes.includes(0)) continue; // binary
      linesOf(bytes.toString('utf8')).forEach((line, i) => {
        const n = [...line.replace(/\r$/, '')].length;
        if (n > max)
          out.push({
            rule: 'line-length',
            files: [file],
            message: `${file}:${i + 1} has ${n} characters (at most ${max})`,
          });
      });
    }
  return out;
}

export function checkArchitecture(root: string): Violation[] {
  const graph = buildImportGraph(root);
  return [...checkCycles(graph), ...checkLayers(graph), ...checkFunctionLengths(root), ...checkLineLengths(root)];
}

export function summary(violations: Violation[]): string {
  const n = (rule: Violation['rule']) => violations.filter((v) => v.rule === rule).length;
  return (
    `architecture: ${n('cycle')} cycles, ${n('layer')} layer imports, ` +
    `${n('function-length')} long functions, ${n('line-length')} long lines`
  );
}

function main(): number {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const violations = checkArchitecture(root);
  for (const v of violations) process.stdout.write(`${v.message}\n`);
  process.stdout.write(`${summary(violations)}\n`);
  return violations.length ? 1 : 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = main();
