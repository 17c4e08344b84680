/**
 * What an entry started by some Node.js does (src/lifecycle/node-runtime.ts): run, relaunch on the
 * project's Node.js, or refuse in one line saying which to use. The real processes are
 * test/process/node-runtime.test.ts's; here, the cases a machine cannot show (no project Node.js, a
 * relaunch that would loop).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type RuntimeFacts, verdictFor } from '../../src/lifecycle/node-runtime.ts';

const engines = JSON.parse(readFileSync('package.json', 'utf8')).engines.node as string;
const system: RuntimeFacts = { version: '20.20.2', execPath: '/usr/bin/node', engines: '>=22.23 <23' };
const projectNode = { path: '/srv/rrs/node_modules/.bin/node', version: '22.23.3' };
const cli = { canRelaunch: true, entry: 'dist/cli/main.js' };
const server = { canRelaunch: false, entry: 'dist/server.js' };

describe('engines, read as npm reads them (semver)', () => {
  it('admits the running Node.js, and holds others to the range in any form npm accepts', () => {
    expect(verdictFor({ ...system, version: process.versions.node, engines }, cli)).toEqual({
      action: 'run',
    });
    for (const version of ['22.23.0', '22.23.3', '22.30.1'])
      expect(verdictFor({ ...system, version }, server), version).toEqual({ action: 'run' });
    for (const version of ['20.20.2', '22.22.9', '23.0.0', '24.1.0'])
      expect(verdictFor({ ...system, version }, server).action, version).toBe('refuse');
    for (const range of ['^22', '22.x', '>=22 <23 || >=26'])
      expect(verdictFor({ ...system, engines: range }, server), range).toMatchObject({
        action: 'refuse',
        message: expect.stringContaining('use Node.js 22'),
      });
  });
});

describe('verdictFor', () => {
  it('runs on a Node.js engines admits', () => {
    expect(verdictFor({ ...system, version: '22.23.3' }, cli)).toEqual({ action: 'run' });
    expect(verdictFor({ ...system, version: '22.23.3' }, server)).toEqual({ action: 'run' });
  });

  it('relaunches the tool on the project’s Node.js; the service names the command instead', () => {
    expect(verdictFor({ ...system, projectNode }, cli)).toEqual({
      action: 'relaunch',
      node: projectNode.path,
    });
    const refused = verdictFor({ ...system, projectNode }, server);
    expect(refused).toEqual({
      action: 'refuse',
      message:
        'needs Node.js >=22.23 <23 (package.json "engines"); this is Node.js 20.20.2 (/usr/bin/node): start it with /srv/rrs/node_modules/.bin/node dist/server.js, or npm start',
    });
  });

  it('refuses without a project Node.js, or with one engines does not admit, saying how to get one', () => {
    for (const facts of [system, { ...system, projectNode: { ...projectNode, version: '24.1.0' } }]) {
      for (const options of [cli, server]) {
        const verdict = verdictFor(facts, options);
        expect(verdict.action).toBe('refuse');
        expect(verdict).toMatchObject({
          message: expect.stringMatching(
            /: run npm ci \(on Linux x64 it installs Node\.js 22 there\), or use Node\.js 22 \(nvm use\)$/,
          ),
        });
      }
    }
  });

  it('never relaunches a relaunched process', () => {
    const verdict = verdictFor({ ...system, projectNode, relaunchedFrom: '/usr/bin/node' }, cli);
    expect(verdict).toMatchObject({ action: 'refuse', message: expect.stringContaining('use Node.js 22') });
  });
});
