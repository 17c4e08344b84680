/**
 * Files the tool writes that hold personal data (pupils' names and e-mail addresses, their roles and
 * groups): the transfer export, backups and an import's report are readable by their owner only
 * (0600), whatever the umask, also when they replace an older file that others could read.
 * docs/privacy.md, "Outside the database", lists them.
 */
import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { backup } from '../../src/db/backup.ts';
import { db } from '../../src/db/client.ts';
import { writePrivateFile } from '../../src/db/private-files.ts';
import { exportFile } from '../../src/transfer/export.service.ts';
import { provider } from '../setup/test-databases.ts';
import { rrsInProcess } from '../support/cli.ts';
import { scratchDir } from '../support/scratch.ts';

/** The permission bits others and the group have on `file`: none is what is expected. */
const othersBits = (file: string) => statSync(file).mode & 0o077;

let folder: string;

beforeAll(async () => {
  folder = scratchDir('private-files');
  await db.person.create({
    data: { pid: 'labA/private-1', nom: 'Durand', prenom: 'Léa', email: 'lea@example.org' },
  });
});

describe('files holding personal data', () => {
  it('an export is written for its owner only', async () => {
    const file = join(folder, 'export.jsonl');
    await exportFile(file, { baseId: 'repo' });
    expect(othersBits(file)).toBe(0);
  });

  it('an export replacing a file others could read is for its owner only', async () => {
    const file = join(folder, 'export-again.jsonl');
    writeFileSync(file, 'old\n');
    chmodSync(file, 0o644);
    await exportFile(file, { baseId: 'repo' });
    expect(othersBits(file)).toBe(0);
  });

  it('a backup is written for its owner only, also over an older one others could read', async () => {
    const file = join(folder, provider === 'sqlite' ? 'backup.db' : 'backup.dump');
    await backup(process.env.DATABASE_URL!, file);
    expect(othersBits(file)).toBe(0);
    chmodSync(file, 0o644);
    await backup(process.env.DATABASE_URL!, file);
    expect(othersBits(file)).toBe(0);
  });

  it('a copy a crashed write left beside the file is replaced, not left to pile up', async () => {
    const file = join(folder, 'person.json');
    // What a write killed before its rename left: the whole document, under a temporary name.
    writeFileSync(`${file}.partial`, '{"pid":"labA/private-1"}');
    chmodSync(`${file}.partial`, 0o644);
    await writePrivateFile(file, '{"pid":"labA/private-1","nom":"Durand"}\n');
    expect(readFileSync(file, 'utf8')).toContain('Durand');
    expect(othersBits(file)).toBe(0);
    expect(readdirSync(folder).filter((name) => name.startsWith('person.json'))).toEqual(['person.json']);
  });

  it("an import's report is written for its owner only", async () => {
    const source = join(folder, 'to-import.jsonl');
    await exportFile(source, { baseId: 'repo' });
    const report = join(folder, 'report.json');
    const run = await rrsInProcess(['import', source, '--dry-run', '--report', report], { BASE_ID: 'repo' });
    expect(run.code, run.stderr).toBe(0);
    expect(othersBits(report)).toBe(0);
  });
});
