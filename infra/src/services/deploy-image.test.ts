import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../../..');
const dockerfile = readFileSync(resolve(root, 'infra/deploy/Dockerfile'), 'utf8');
const engines = (JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;

describe('the Docker image and the Node lines the code runs on', () => {
  it('builds and runs on an LTS line that is still supported (not Node 20, past its end of life), in both stages', () => {
    const major = Number(/^ARG NODE_MAJOR=(\d+)$/m.exec(dockerfile)?.[1]);
    expect(major % 2, 'only even lines become LTS').toBe(0);
    expect(major).toBeGreaterThanOrEqual(24);
    const froms = dockerfile.match(/^FROM .+$/gm) ?? [];
    expect(froms).toHaveLength(2);
    for (const from of froms) expect(from).toMatch(/^FROM node:\$\{NODE_MAJOR\}-/);
  });

  it('keeps "engines" honest: a lower bound on Node 20, which the Node running this suite meets', () => {
    const [, major, minor] = /^>=(\d+)\.(\d+)$/.exec(engines) ?? [];
    expect(Number(major), engines).toBe(20);
    const [runMajor, runMinor] = process.versions.node.split('.').map(Number) as [number, number];
    expect(runMajor > Number(major) || (runMajor === Number(major) && runMinor >= Number(minor)), `${process.version} vs ${engines}`).toBe(true);
  });
});
