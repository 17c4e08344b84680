/** `rrs person create|update|show|erase`: persons and the roles an administrator grants them. */
import type { Command } from 'commander';
import type { Config } from '../../config.ts';
import { db } from '../../db/client.ts';
import { ConflictError, InvalidInputError, NotFoundError } from '../../errors.ts';
import { addPerson, isPid } from '../../modules/persons/persons.service.ts';
import { permissionsOf, roleSourceGrants } from '../../permissions.ts';
import { output, withService } from '../context.ts';
import { registerPersonEraseCommand } from './person-erase.ts';
import { registerPersonExportCommand } from './person-export.ts';

interface PersonOptions {
  pid: string;
  nom?: string;
  prenom?: string;
  email?: string;
  role?: string[];
}

function splitPid(pid: string): { origine: string; idOrigine: string } {
  if (!isPid(pid)) throw new InvalidInputError(`pid ${pid}: expected <origin>/<id>, e.g. local/alice`);
  const slash = pid.indexOf('/');
  return { origine: pid.slice(0, slash), idOrigine: pid.slice(slash + 1) };
}

/**
 * Who granted a role, by its stored source: an administrator (this tool, GraphQL), a lab's login,
 * or the development login.
 */
const GRANTED_BY: Record<string, string> = {
  admin: 'an administrator',
  lab: 'a lab login',
  devLogin: 'the development login',
};

/**
 * The person with roles (their source, and whether they count: the development login's do only
 * while it is on), groups and permissions, as `show` prints it.
 */
async function describePerson(pid: string, config: Config) {
  const person = await db.person.findUnique({
    where: { pid },
    include: {
      roles: { orderBy: { role: 'asc' } },
      managedGroups: { select: { group: { select: { nom: true } } } },
      memberGroups: { select: { group: { select: { nom: true } } } },
    },
  });
  if (!person) throw new NotFoundError(`No person with pid ${pid}`);
  return {
    oid: person.oid,
    pid: person.pid,
    nom: person.nom,
    prenom: person.prenom,
    email: person.email,
    roles: person.roles.map((role) => ({
      role: role.role,
      source: role.source,
      active: roleSourceGrants(role.source, config),
    })),
    permissions: [
      ...permissionsOf(
        person.roles.filter((role) => roleSourceGrants(role.source, config)).map((role) => role.role),
        config.roles,
      ),
    ].sort(),
    groupesAdmin: person.managedGroups.map((m) => m.group.nom).sort(),
    groupesMembre: person.memberGroups.map((m) => m.group.nom).sort(),
  };
}

type Described = Awaited<ReturnType<typeof describePerson>>;

function describeRole(role: Described['roles'][number]): string {
  const granted = `granted by ${GRANTED_BY[role.source] ?? role.source}`;
  return `${role.role} (${role.active ? granted : `${granted}, which is off: grants nothing`})`;
}

function humanPerson(person: Described): string {
  return [
    `${person.pid}  ${person.prenom} ${person.nom}${person.email ? ` <${person.email}>` : ''}  (oid ${person.oid})`,
    `  roles:       ${person.roles.map(describeRole).join(', ') || '—'}`,
    `  permissions: ${person.permissions.join(', ') || '—'}`,
    `  manages:     ${person.groupesAdmin.join(', ') || '—'}`,
    `  member of:   ${person.groupesMembre.join(', ') || '—'}`,
  ].join('\n');
}

export function registerPersonCommands(program: Command): void {
  const person = program.command('person').description('create, update and show persons and their roles');

  const writeOptions = (command: Command, required: boolean) =>
    command
      .requiredOption('--pid <pid>', 'the person’s pid, <origin>/<id> (e.g. local/alice)')
      [required ? 'requiredOption' : 'option']('--nom <nom>', 'family name')
      [required ? 'requiredOption' : 'option']('--prenom <prenom>', 'given name')
      .option('--email <email>', 'e-mail address')
      .option(
        '--role <role...>',
        'roles granted by an administrator, replacing earlier ones (roles of the configuration, e.g. admin formateur)',
      );

  writeOptions(
    person.command('create').description('create a person (fails if the pid exists)'),
    true,
  ).action(async (options: PersonOptions, command: Command) =>
    withService(async ({ config }) => {
      const { origine, idOrigine } = splitPid(options.pid);
      if (await db.person.findUnique({ where: { pid: options.pid } })) {
        throw new ConflictError(
          `A person with pid ${options.pid} exists already (use: npx rrs person update)`,
        );
      }
      await addPerson(
        {
          origine,
          idOrigine,
          nom: options.nom,
          prenom: options.prenom,
          email: options.email,
          roles: options.role,
        },
        config,
      );
      const created = await describePerson(options.pid, config);
      output(command, created, () => `created ${humanPerson(created)}`);
    }),
  );

  writeOptions(
    person.command('update').description('change names, e-mail or administrator-granted roles of a person'),
    false,
  ).action(async (options: PersonOptions, command: Command) =>
    withService(async ({ config }) => {
      const { origine, idOrigine } = splitPid(options.pid);
      const existing = await db.person.findUnique({ where: { pid: options.pid } });
      if (!existing)
        throw new NotFoundError(`No person with pid ${options.pid} (use: npx rrs person create)`);
      await addPerson(
        {
          origine,
          idOrigine,
          nom: options.nom ?? existing.nom,
          prenom: options.prenom ?? existing.prenom,
          email: options.email,
          roles: options.role,
        },
        config,
      );
      const updated = await describePerson(options.pid, config);
      output(command, updated, () => `updated ${humanPerson(updated)}`);
    }),
  );

  person
    .command('show')
    .description('show a person: roles, permissions, groups')
    .argument('<pid>', 'the person’s pid')
    .action(async (pid: string, _options: unknown, command: Command) =>
      withService(async ({ config }) => {
        const described = await describePerson(pid, config);
        output(command, described, () => humanPerson(described));
      }),
    );

  registerPersonExportCommand(person);
  registerPersonEraseCommand(person);
}
