/**
 * A person's last login (`Person.lastLoginAt`), written by every login that starts a session (lab
 * and development logins): the retention purge counts a person's inactivity from it
 * (src/modules/privacy/retention.service.ts), from `createdAt` for a person never logged in.
 */
import { db } from '../../db/client.ts';

export async function recordLogin(personOid: number, at: Date = new Date()): Promise<void> {
  // updateMany: a person erased meanwhile is no error here (the session then finds nobody).
  await db.person.updateMany({ where: { oid: personOid }, data: { lastLoginAt: at } });
}
