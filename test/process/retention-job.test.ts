/**
 * The service's own retention purge (`node dist/server.js`): with `stalePersons.action` `erase`, the
 * round a start runs erases the persons past their period who authored nothing, through the
 * erasure (audited as asked by the purge), and keeps the others.
 */
import { describe, expect, it } from 'vitest';
import { db } from '../../src/db/client.ts';
import { configFile, startServer } from '../support/server-process.ts';

const settings = { baseId: 'ret', baseUrl: 'http://ret.test/', listeMax: 100 };
const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000);

describe('the retention purge of a running service', () => {
  it('erases stale persons at start when told to, and no one else', async () => {
    const stale = await db.person.create({
      data: {
        pid: 'ret/parti',
        nom: 'Partie',
        prenom: 'Élève',
        createdAt: daysAgo(400),
        lastLoginAt: daysAgo(200),
      },
    });
    const active = await db.person.create({
      data: { pid: 'ret/present', nom: 'Présente', prenom: 'Élève', lastLoginAt: daysAgo(2) },
    });
    const server = startServer({
      CONFIG_FILE: configFile({
        ...settings,
        privacy: { retention: { stalePersons: { afterDays: 90, action: 'erase' } } },
      }),
      DATABASE_URL: process.env.DATABASE_URL as string,
    });
    await server.serving;
    const round = await server.waitForLog((line) => line.msg === 'retention purge', 20_000);
    expect(round).toMatchObject({ stalePersons: 1, erasedPersons: 1 });
    expect(await server.stop()).toBe(0);
    expect(await db.person.findUnique({ where: { oid: stale.oid } })).toBeNull();
    expect(await db.person.findUnique({ where: { oid: active.oid } })).not.toBeNull();
    const erasure = await db.auditEntry.findFirstOrThrow({ where: { action: 'erased' } });
    expect(erasure).toMatchObject({ actorKind: 'token', actorLabel: 'retention purge' });
    // The log line and the audit entry name no one.
    expect(JSON.stringify([round, erasure])).not.toContain('ret/parti');
  });
});
