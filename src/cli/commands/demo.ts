/**
 * `rrs demo load`: a small, coherent data set to try the service with, written through the
 * services (so every rule holds: names, rights, authors, groups) and idempotent (persons by pid,
 * groups by name, resources by their `demo/<id>` origin: a second load changes nothing).
 */
import type { Command } from 'commander';
import { db } from '../../db/client.ts';
import { createGroup, groupNameKey, joinGroup } from '../../modules/groups/groups.service.ts';
import { addPerson } from '../../modules/persons/persons.service.ts';
import { saveResource } from '../../modules/resources/resources.service.ts';
import { type CliContext, output, withService } from '../context.ts';

export const DEMO_ORIGIN = 'demo';

export const DEMO_PERSONS = [
  { idOrigine: 'admin', prenom: 'Ada', nom: 'Admin', email: 'ada.admin@example.org', roles: ['admin'] },
  { idOrigine: 'prof', prenom: 'Paul', nom: 'Prof', email: 'paul.prof@example.org', roles: ['formateur'] },
  { idOrigine: 'eleve1', prenom: 'Emma', nom: 'Élève', roles: ['eleve'] },
  { idOrigine: 'eleve2', prenom: 'Léo', nom: 'Élève', roles: ['eleve'] },
] as const;

const TEACHER = `${DEMO_ORIGIN}/prof`;
const PUPILS = [`${DEMO_ORIGIN}/eleve1`, `${DEMO_ORIGIN}/eleve2`];

export const DEMO_GROUPS = [
  { nom: 'Démo 6e A', description: 'Classe de démonstration', ouvert: true, public: true },
  { nom: 'Démo équipe maths', description: 'Professeurs (groupe fermé)', ouvert: false, public: false },
] as const;

/** Resources by `idOrigine`; the tree comes last and points at the others. */
export const DEMO_RESOURCES = [
  {
    idOrigine: 'fractions',
    type: 'url',
    titre: 'Les fractions en images',
    resume: 'Découvrir les fractions avec des parts de gâteau',
    parametres: { adresse: 'https://example.org/fractions' },
    publie: true,
    restriction: 0,
    categories: [3],
    niveaux: ['6e'],
  },
  {
    idOrigine: 'calcul-mental',
    type: 'mental',
    titre: 'Calcul mental : tables de multiplication',
    resume: 'Dix questions chronométrées',
    publie: true,
    restriction: 0,
    categories: [7],
    niveaux: ['6e', '5e'],
  },
  {
    idOrigine: 'evaluation-6a',
    type: 'j3p',
    titre: 'Évaluation de la 6e A',
    resume: 'Réservée aux membres du groupe Démo 6e A',
    publie: true,
    restriction: 2,
    readerGroups: ['Démo 6e A'],
    categories: [5],
  },
  {
    idOrigine: 'brouillon',
    type: 'url',
    titre: 'Brouillon du professeur',
    resume: 'Ressource privée : seul son auteur la voit',
    parametres: { adresse: 'https://example.org/brouillon' },
    publie: false,
    restriction: 3,
  },
] as const;

interface LoadSummary {
  persons: string[];
  groups: string[];
  resources: { rid: string; titre: string; created: boolean }[];
}

export async function loadDemo(cli: CliContext): Promise<LoadSummary> {
  for (const person of DEMO_PERSONS) {
    await addPerson({ origine: DEMO_ORIGIN, ...person, roles: [...person.roles] }, cli.config);
  }
  const teacher = await cli.asPerson(TEACHER);
  for (const group of DEMO_GROUPS) {
    const exists = await db.group.findUnique({
      where: { nomKey: groupNameKey(group.nom) },
      select: { oid: true },
    });
    if (!exists) await createGroup(teacher.viewer, group);
  }
  for (const pid of PUPILS) {
    // Joining is idempotent; the class is open.
    await joinGroup((await cli.asPerson(pid)).viewer, DEMO_GROUPS[0].nom);
  }
  const resources: LoadSummary['resources'] = [];
  const common = { origine: DEMO_ORIGIN, authors: [TEACHER], langue: 'fra' };
  for (const resource of DEMO_RESOURCES) {
    const saved = await saveResource(teacher, { ...common, ...resource }, false);
    resources.push({ rid: saved.rid, titre: resource.titre, created: saved.created });
  }
  const [fractions, mental, evaluation] = resources;
  const tree = await saveResource(
    teacher,
    {
      ...common,
      idOrigine: 'parcours-6e',
      type: 'arbre',
      titre: 'Parcours de 6e',
      resume: 'Un arbre qui range les ressources de démonstration',
      publie: true,
      restriction: 0,
      categories: [8],
      enfants: [
        {
          titre: 'Nombres',
          type: 'arbre',
          enfants: [
            { titre: fractions!.titre, type: 'url', aliasOf: fractions!.rid },
            { titre: mental!.titre, type: 'mental', aliasOf: mental!.rid },
          ],
        },
        { titre: evaluation!.titre, type: 'j3p', aliasOf: evaluation!.rid },
      ],
    },
    false,
  );
  resources.push({ rid: tree.rid, titre: 'Parcours de 6e', created: tree.created });
  return {
    persons: DEMO_PERSONS.map((person) => `${DEMO_ORIGIN}/${person.idOrigine}`),
    groups: DEMO_GROUPS.map((group) => group.nom),
    resources,
  };
}

export function registerDemoCommands(program: Command): void {
  const demo = program.command('demo').description('demonstration data');
  demo
    .command('load')
    .description('load a small demo data set (persons incl. an admin, groups, resources, a tree); idempotent')
    .action(async (_options: unknown, command: Command) =>
      withService(async (cli) => {
        const summary = await loadDemo(cli);
        output(command, summary, () =>
          [
            `persons:   ${summary.persons.join(', ')} (demo/admin is an administrator, demo/prof a teacher)`,
            `groups:    ${summary.groups.join(', ')} (managed by demo/prof)`,
            'resources:',
            ...summary.resources.map(
              (r) => `  ${r.rid.padEnd(12)} ${r.titre}${r.created ? '' : ' (already there)'}`,
            ),
          ].join('\n'),
        );
      }),
    );
}
