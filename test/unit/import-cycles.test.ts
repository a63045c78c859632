/**
 * No import cycle anywhere in src/ (issue 52, "the shape follows"). A cycle makes a module's
 * meaning depend on which side loads first (a class or constant read while still undefined),
 * and it hides the layering: a domain rule that reaches back into a run module, a store that
 * imports its own caller. Every edge counts: a value import, an `import type`, an
 * `export … from` and a lazy `import()`, since each one ties the two files' designs together
 * even where the bundle would not load them in a loop.
 *
 * Files are parsed with the TypeScript compiler already in devDependencies (a regular
 * expression misreads multi-line imports, `import {\n type A,\n} from` and imports quoted in
 * comments); cycles are the strongly connected components of the graph (Tarjan).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));

type Kind = 'value' | 'type' | 'dynamic';
interface Edge {
  from: string;
  to: string;
  kind: Kind;
  line: number;
}

/** The module specifiers a file names, with how it names each and on which line. */
function importsOf(fileName: string, text: string): { spec: string; kind: Kind; line: number }[] {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: { spec: string; kind: Kind; line: number }[] = [];
  const add = (lit: ts.Node | undefined, kind: Kind) => {
    if (lit && ts.isStringLiteralLike(lit))
      found.push({ spec: lit.text, kind, line: sf.getLineAndCharacterOfPosition(lit.getStart(sf)).line + 1 });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      const c = node.importClause;
      const typeOnly =
        !!c &&
        (c.isTypeOnly ||
          (!c.name &&
            !!c.namedBindings &&
            ts.isNamedImports(c.namedBindings) &&
            c.namedBindings.elements.length > 0 &&
            c.namedBindings.elements.every((e) => e.isTypeOnly)));
      add(node.moduleSpecifier, typeOnly ? 'type' : 'value');
    } else if (ts.isExportDeclaration(node)) {
      add(node.moduleSpecifier, node.isTypeOnly ? 'type' : 'value');
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      add(node.arguments[0], 'dynamic');
    } else if (ts.isImportTypeNode(node)) {
      const arg = node.argument;
      if (ts.isLiteralTypeNode(arg)) add(arg.literal, 'type');
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(node.moduleReference.expression, node.isTypeOnly ? 'type' : 'value');
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

/** Every .ts file under dir (declaration files aside). */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = join(dir, d.name);
    if (d.isDirectory()) return sources(p);
    return d.name.endsWith('.ts') && !d.name.endsWith('.d.ts') ? [p] : [];
  });
}

/** The import edges between the given files (text by path), resolved as NodeNext resolves them. */
function edgesOf(files: Map<string, string>): Edge[] {
  const edges: Edge[] = [];
  for (const [from, text] of files) {
    for (const { spec, kind, line } of importsOf(from, text)) {
      if (!spec.startsWith('.')) continue;
      const to = resolve(dirname(from), spec.replace(/\.js$/, '.ts'));
      if (files.has(to)) edges.push({ from, to, kind, line });
    }
  }
  return edges;
}

/** Strongly connected components with more than one file, or one file importing itself. */
function cycles(nodes: Iterable<string>, edges: Edge[]): string[][] {
  const out = new Map<string, string[]>();
  for (const e of edges) out.set(e.from, [...(out.get(e.from) ?? []), e.to]);
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  // Recursive Tarjan: src/'s import chains are a few dozen deep, far below the stack's limit.
  const connect = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of out.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (out.get(v) ?? []).includes(v)) found.push(component.sort());
  };
  for (const v of nodes) if (!index.has(v)) connect(v);
  return found;
}

/** One cycle as a reader fixes it: its files, then each edge inside it with where it is written. */
function describeCycle(component: string[], edges: Edge[], base: string): string {
  const inside = new Set(component);
  const rel = (p: string) => relative(base, p);
  const lines = edges
    .filter((e) => inside.has(e.from) && inside.has(e.to))
    .map((e) => `    ${rel(e.from)}:${e.line} -> ${rel(e.to)} (${e.kind})`);
  return [`  cycle of ${component.length}: ${component.map(rel).join(', ')}`, ...lines].join('\n');
}

let graph: { files: Map<string, string>; edges: Edge[] } | undefined;
/** src/'s files and the edges between them, read once for the tests below. */
function srcGraph(): { files: Map<string, string>; edges: Edge[] } {
  if (graph) return graph;
  const files = new Map(sources(SRC).map((f) => [f, readFileSync(f, 'utf8')]));
  return (graph = { files, edges: edgesOf(files) });
}

describe('the import graph', () => {
  it('reads every way a file names another: multi-line, type-only, re-exports, lazy imports', () => {
    const text = [
      "import { a } from './a.js';",
      'import {',
      '  type B,',
      '  type C,',
      "} from './b.js';",
      "import type { D } from '../d.js';",
      "export { e } from './e/index.js';",
      "export type * from './f.js';",
      "const g = await import('./g.js');",
      "type H = import('./h.js').H;",
      "// import { x } from './comment.js';",
      'const s = "import(\'./string.js\')";',
      "import { readFileSync } from 'node:fs';",
      "import { mixed, type M } from './m.js';",
    ].join('\n');
    const relativeOnes = importsOf('/x/y.ts', text).filter((i) => i.spec.startsWith('.'));
    expect(relativeOnes.map(({ spec, kind }) => `${spec} ${kind}`)).toEqual([
      './a.js value',
      './b.js type',
      '../d.js type',
      './e/index.js value',
      './f.js type',
      './g.js dynamic',
      './h.js type',
      './m.js value',
    ]);
  });

  it('finds a cycle, through a lazy import or a type, and names its edges', () => {
    const files = new Map([
      ['/p/a.ts', "import { b } from './b.js';"],
      ['/p/b.ts', "import type { C } from './sub/c.js';"],
      ['/p/sub/c.ts', "export const c = () => import('../a.js');"],
      ['/p/leaf.ts', "import { a } from './a.js';"],
      ['/p/self.ts', "export * from './self.js';"],
    ]);
    const edges = edgesOf(files);
    const found = cycles(files.keys(), edges);
    expect(found).toEqual([['/p/a.ts', '/p/b.ts', '/p/sub/c.ts'], ['/p/self.ts']]);
    expect(describeCycle(found[0]!, edges, '/p')).toBe(
      [
        '  cycle of 3: a.ts, b.ts, sub/c.ts',
        '    a.ts:1 -> b.ts (value)',
        '    b.ts:1 -> sub/c.ts (type)',
        '    sub/c.ts:1 -> a.ts (dynamic)',
      ].join('\n'),
    );
    expect(
      cycles(
        files.keys(),
        edges.filter((e) => e.from !== '/p/sub/c.ts' && e.from !== '/p/self.ts'),
      ),
    ).toEqual([]);
  });

  it('has no cycle in src/', () => {
    const { files, edges } = srcGraph();
    // The walk saw the source tree, not an empty or misread one.
    expect(files.size).toBeGreaterThan(100);
    expect(edges.length).toBeGreaterThan(files.size);
    const found = cycles(files.keys(), edges);
    const report = found.map((c) => describeCycle(c, edges, SRC)).join('\n');
    expect(found.length, `import cycles in src/ (break each one; see this file's header):\n${report}`).toBe(0);
  });

  it('keeps src/domain/ under the commands: it imports nothing of run/ or commands/, nor commander, chalk or inquirer', () => {
    const { files, edges } = srcGraph();
    const inDomain = (f: string) => relative(SRC, f).startsWith(`domain${sep}`);
    const upward = edges
      .filter((e) => inDomain(e.from) && /^(run|commands)[\\/]/.test(relative(SRC, e.to)))
      .map((e) => `${relative(SRC, e.from)}:${e.line} -> ${relative(SRC, e.to)}`);
    const packages = [...files]
      .filter(([f]) => inDomain(f))
      .flatMap(([f, text]) =>
        importsOf(f, text)
          .filter((i) => /^(commander|chalk|inquirer|@inquirer\/)/.test(i.spec))
          .map((i) => `${relative(SRC, f)}:${i.line} -> ${i.spec}`),
      );
    expect([...upward, ...packages]).toEqual([]);
  });
});
