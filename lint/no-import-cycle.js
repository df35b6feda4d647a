// ESLint rule `pass/no-import-cycle`: an import that starts a circle of imports is an error, type
// imports included. import-x's no-cycle skips `import type`, but a circle of types is still two
// modules that cannot be understood (or moved) one without the other.
//
// The graph is read with TypeScript's own pre-processor (every import, export-from and import(),
// type-only or not) and resolved with the project's compiler options, so `@pass/*` entries lead to
// the files they name. Files are read once per process; the file being linted is taken from the
// linter's text, so a planted import counts before it is saved.
import { basename, dirname, join, relative, resolve } from 'node:path';
import { readFileSync, realpathSync } from 'node:fs';
import ts from 'typescript';

const ROOT = resolve(import.meta.dirname, '..');
const { config } = ts.readConfigFile(resolve(ROOT, 'tsconfig.base.json'), ts.sys.readFile);
const { options: compilerOptions } = ts.convertCompilerOptionsFromJson(config.compilerOptions, ROOT);
/** The real path of a file, or of its folder for a file not written yet (a linted text). */
const realPath = (file) => {
  try {
    return realpathSync(file);
  } catch {
    return join(realpathSync(dirname(file)), basename(file));
  }
};
const resolutionCache = ts.createModuleResolutionCache(ROOT, (name) => name, compilerOptions);

/** Project source files only: not node_modules, not declaration files. */
const isProjectSource = (file) =>
  file.startsWith(ROOT + '/') && !file.includes('/node_modules/') && /\.(ts|tsx)$/.test(file) && !file.endsWith('.d.ts');

const resolved = new Map();
function resolveImport(specifier, fromFile) {
  const key = `${dirname(fromFile)}\0${specifier}`;
  if (!resolved.has(key)) {
    const found = ts.resolveModuleName(specifier, fromFile, compilerOptions, ts.sys, resolutionCache).resolvedModule;
    let file = found?.resolvedFileName;
    if (file) file = realpathSync(file);
    resolved.set(key, file && isProjectSource(file) ? file : undefined);
  }
  return resolved.get(key);
}

const importsOf = (text, file) =>
  ts
    .preProcessFile(text, true, true)
    .importedFiles.map(({ fileName }) => resolveImport(fileName, file))
    .filter(Boolean);

const fileImports = new Map();
function importsOfFile(file) {
  if (!fileImports.has(file)) {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      // A file that vanished while linting imports nothing.
    }
    fileImports.set(file, importsOf(text, file));
  }
  return fileImports.get(file);
}

/** The shortest path of imports from `start` back to `target`, or undefined. */
function pathBack(start, target) {
  const cameFrom = new Map([[start, undefined]]);
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift();
    for (const next of importsOfFile(file)) {
      if (next === target) {
        const path = [file];
        for (let at = cameFrom.get(file); at !== undefined; at = cameFrom.get(at)) path.unshift(at);
        return path;
      }
      if (!cameFrom.has(next)) {
        cameFrom.set(next, file);
        queue.push(next);
      }
    }
  }
  return undefined;
}

const sourceOf = (node) => {
  if (node.type === 'ImportExpression') return node.source.type === 'Literal' ? node.source : undefined;
  return node.source ?? undefined;
};

export default {
  meta: {
    type: 'problem',
    docs: { description: 'Forbid import circles, type-only imports included.' },
    schema: [],
    messages: { cycle: 'Import circle: {{circle}}. Move what both sides need into a module both import.' },
  },
  create(context) {
    const file = realPath(context.physicalFilename ?? context.filename);
    if (!isProjectSource(file)) return {};
    // The linted file's own imports come from its current text, every other file's from disk.
    fileImports.set(file, importsOf(context.sourceCode.text, file));
    const check = (node) => {
      const source = sourceOf(node);
      if (typeof source?.value !== 'string') return;
      const target = resolveImport(source.value, file);
      if (!target) return;
      const back = target === file ? [] : pathBack(target, file);
      if (!back) return;
      const circle = [file, ...back, file].map((f) => relative(ROOT, f)).join(' → ');
      context.report({ node: source, messageId: 'cycle', data: { circle } });
    };
    return {
      ImportDeclaration: check,
      ExportNamedDeclaration: check,
      ExportAllDeclaration: check,
      ImportExpression: check,
      // A planted text must not stand in for the file on disk in the next file's graph.
      'Program:exit': () => fileImports.delete(file),
    };
  },
};
