import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { SERVICE_NODE_FLAGS, STANDALONE_NODE_FLAGS, type ServiceName } from './node-flags';

const root = resolve(import.meta.dirname, '../../..');
const services = Object.keys(SERVICE_NODE_FLAGS) as ServiceName[];

/** The node flags before `--import tsx <entry>` in a command line, and the entry it starts. */
function nodeFlagsOf(argv: readonly string[]): { flags: string[]; entry: string | undefined } {
  expect(argv[0]).toBe('node');
  const at = argv.indexOf('--import');
  return { flags: argv.slice(1, at), entry: argv[at + 2] };
}

describe("each service's node flags", () => {
  it('are the same in `npm run start:<service>`', () => {
    const scripts = (JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    for (const name of services) {
      const { flags, entry } = nodeFlagsOf(scripts[`start:${name}`]!.split(' '));
      expect(entry, name).toBe(`infra/src/services/${name}.ts`);
      expect(flags, name).toEqual(SERVICE_NODE_FLAGS[name]);
    }
  });

  it('are the same in infra/deploy/compose.yaml, for every container of a service', () => {
    const compose = parseYaml(readFileSync(resolve(root, 'infra/deploy/compose.yaml'), 'utf8'), { merge: true }) as {
      services: Record<string, { command?: string[] }>;
    };
    const seen = new Set<ServiceName>();
    for (const [container, { command }] of Object.entries(compose.services)) {
      if (command?.[0] !== 'node') continue;
      const { flags, entry } = nodeFlagsOf(command);
      const name = services.find((s) => entry === `infra/src/services/${s}.ts`);
      if (!name) continue;
      seen.add(name);
      expect(flags, container).toEqual(SERVICE_NODE_FLAGS[name]);
    }
    expect([...seen].sort()).toEqual([...services].sort());
  });
});

describe("the standalone process's node flags", () => {
  it('are the ones `npm start` runs it with (scripts/start.mjs)', () => {
    const script = readFileSync(resolve(root, 'scripts/start.mjs'), 'utf8');
    const line = /^const NODE_FLAGS = (\[.*\]);$/m.exec(script);
    expect(line, 'start.mjs declares NODE_FLAGS on one line').not.toBeNull();
    expect(JSON.parse(line![1]!.replaceAll("'", '"'))).toEqual(STANDALONE_NODE_FLAGS);
    expect(script).toContain("spawn(process.execPath, [...NODE_FLAGS, '--import', 'tsx', resolve(root, 'infra/src/standalone/main.ts')]");
  });

  it("are the ones of the image's default command (infra/deploy/Dockerfile)", () => {
    const cmd = /^CMD (\[.*\])$/m.exec(readFileSync(resolve(root, 'infra/deploy/Dockerfile'), 'utf8'));
    const { flags, entry } = nodeFlagsOf(JSON.parse(cmd![1]!) as string[]);
    expect(entry).toBe('infra/src/standalone/main.ts');
    expect(flags).toEqual(STANDALONE_NODE_FLAGS);
  });
});
