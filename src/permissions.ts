/**
 * The closed catalogue of generic permissions a role can grant (compatibility notes §2), and the
 * mapping from a person's roles to them. Per-resource and per-group rules live in the policies of
 * their domains and build on these.
 */
export const PERMISSIONS = [
  'allRights',
  'create',
  'createAll',
  'read',
  'update',
  'updateAuteurs',
  'updateGroupes',
  'delete',
  'deleteVersion',
  'index',
  'publish',
  'correction',
  'createGroupe',
  /** List and retry notifications to peer repositories (the outbox): an operator's task. */
  'managePeerNotifications',
  /** Read the audit log (who created, changed or deleted resources and groups). */
  'readAudit',
  /**
   * Export or erase any person's personal data (GDPR access, portability and erasure requests): a
   * data protection officer's task. A person exports their own data without it.
   */
  'managePersonalData',
] as const;

export type Permission = (typeof PERMISSIONS)[number];

/**
 * Who granted a role (`PersonRole.source`): an administrator (the CLI, `personne/add`), a lab's
 * login, or the development login.
 */
export type RoleSource = 'admin' | 'lab' | 'devLogin';

/**
 * Whether a role granted by `source` counts. The development login's grants count only while it
 * is on: whoever used it could give themselves any role, and turning it off must take that back.
 * They are kept rather than deleted at start, so that every process (an instance, the CLI) decides
 * by its own configuration, none depends on another having started, and turning the development
 * login on again gives developers back what they had.
 */
export function roleSourceGrants(source: string, config: { devLogin: boolean }): boolean {
  return source !== 'devLogin' || config.devLogin;
}

/** Permissions granted by a set of roles; unknown roles grant nothing. */
export function permissionsOf(
  roles: Iterable<string>,
  roleTable: Readonly<Record<string, readonly Permission[]>>,
) {
  const granted = new Set<Permission>();
  for (const role of roles) {
    if (!Object.hasOwn(roleTable, role)) continue;
    for (const permission of roleTable[role]!) granted.add(permission);
  }
  return granted;
}
