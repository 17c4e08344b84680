/**
 * The arguments of a request (§3.1.1, §4): read from the raw pairs, so a repeated argument is seen
 * (a parsed query object would keep one value or make an array), then checked against its verb.
 * Every badArgument problem is reported, each as its own error, so a harvester's author sees them all.
 */
import { SET_SPEC } from '../modules/harvest/set-spec.ts';
import { parseRequestDatestamp, type RequestDatestamp } from './datestamp.ts';
import { type OaiError, oaiError } from './errors.ts';

export const VERBS = [
  'Identify',
  'ListMetadataFormats',
  'ListSets',
  'ListIdentifiers',
  'ListRecords',
  'GetRecord',
] as const;
export type Verb = (typeof VERBS)[number];

export const ARGUMENT_NAMES = [
  'verb',
  'identifier',
  'metadataPrefix',
  'from',
  'until',
  'set',
  'resumptionToken',
] as const;
type ArgumentName = (typeof ARGUMENT_NAMES)[number];

interface VerbArguments {
  required: ArgumentName[];
  optional: ArgumentName[];
  /** An argument that stands alone (besides the verb) when present. */
  exclusive?: ArgumentName;
}

const ARGUMENTS: Record<Verb, VerbArguments> = {
  Identify: { required: [], optional: [] },
  ListMetadataFormats: { required: [], optional: ['identifier'] },
  ListSets: { required: [], optional: [], exclusive: 'resumptionToken' },
  ListIdentifiers: {
    required: ['metadataPrefix'],
    optional: ['from', 'until', 'set'],
    exclusive: 'resumptionToken',
  },
  ListRecords: {
    required: ['metadataPrefix'],
    optional: ['from', 'until', 'set'],
    exclusive: 'resumptionToken',
  },
  GetRecord: { required: ['identifier', 'metadataPrefix'], optional: [] },
};

/** The schema's pattern of a metadataPrefix (OAI-PMH.xsd metadataPrefixType); setSpecType's is SET_SPEC. */
const METADATA_PREFIX = /^[A-Za-z0-9\-_.!~*'()]+$/;

export interface Selection {
  /** Inclusive bounds, as the source takes them. */
  from?: Date;
  until?: Date;
  set?: string;
}

export type OaiRequest =
  | { verb: 'Identify' }
  | { verb: 'ListMetadataFormats'; identifier?: string }
  | { verb: 'ListSets'; resumptionToken?: string }
  | {
      verb: 'ListIdentifiers' | 'ListRecords';
      resumptionToken?: string;
      metadataPrefix?: string;
      selection: Selection;
    }
  | { verb: 'GetRecord'; identifier: string; metadataPrefix: string };

export type ParsedArguments =
  | { request: OaiRequest; echo: [string, string][] }
  | { errors: OaiError[]; echo: [] };

const isVerb = (value: string): value is Verb => (VERBS as readonly string[]).includes(value);

/** The `from` and `until` of a request, as parsed. */
type Bounds = Partial<Record<'from' | 'until', RequestDatestamp>>;

/**
 * The first value of each argument the verb takes; a problem for each other argument and each one
 * repeated (once per name, however often it comes).
 */
function argumentValues(
  pairs: readonly [string, string][],
  verb: Verb,
  problems: string[],
): Map<string, string> {
  const rules = ARGUMENTS[verb];
  const allowed = new Set<string>([
    'verb',
    ...rules.required,
    ...rules.optional,
    ...(rules.exclusive ? [rules.exclusive] : []),
  ]);
  const values = new Map<string, string>();
  const reported = new Set<string>();
  for (const [name, value] of pairs) {
    if (!allowed.has(name)) {
      if (!reported.has(name)) problems.push(`"${name}" is not an argument of ${verb}.`);
      reported.add(name);
    } else if (values.has(name)) {
      if (!reported.has(name)) problems.push(`The ${name} argument is repeated.`);
      reported.add(name);
    } else {
      values.set(name, value);
    }
  }
  return values;
}

/** An exclusive argument given comes alone; otherwise the verb's required arguments are all given. */
function checkPresence(verb: Verb, values: ReadonlyMap<string, string>, problems: string[]): void {
  const rules = ARGUMENTS[verb];
  if (rules.exclusive && values.has(rules.exclusive)) {
    const others = [...values.keys()].filter((name) => name !== 'verb' && name !== rules.exclusive);
    if (others.length > 0) {
      problems.push(
        `${rules.exclusive} is an exclusive argument: it comes with no other (${others.join(', ')}).`,
      );
    }
  } else {
    for (const name of rules.required) {
      if (!values.has(name)) problems.push(`The ${name} argument is required by ${verb}.`);
    }
  }
}

/** Each value given is of its argument's form, and `from` and `until` make a range; returns them parsed. */
function checkValues(values: ReadonlyMap<string, string>, problems: string[]): Bounds {
  const prefix = values.get('metadataPrefix');
  if (prefix !== undefined && !METADATA_PREFIX.test(prefix)) {
    problems.push(`"${prefix}" is not a metadataPrefix (letters, digits and -_.!~*'() only).`);
  }
  const set = values.get('set');
  if (set !== undefined && !SET_SPEC.test(set)) {
    problems.push(`"${set}" is not a setSpec (words of letters, digits and -_.!~*'(), separated by ":").`);
  }
  const bounds: Bounds = {};
  for (const name of ['from', 'until'] as const) {
    const value = values.get(name);
    if (value === undefined) continue;
    const parsed = parseRequestDatestamp(value);
    if (parsed) bounds[name] = parsed;
    else
      problems.push(`${name} "${value}" is neither YYYY-MM-DD nor YYYY-MM-DDThh:mm:ssZ (a real date, UTC).`);
  }
  if (bounds.from && bounds.until) {
    if (bounds.from.granularity !== bounds.until.granularity) {
      problems.push('from and until must have the same granularity (both days, or both seconds).');
    } else if (bounds.from.start > bounds.until.start) {
      problems.push('from is later than until.');
    }
  }
  if (values.get('resumptionToken') === '') problems.push('The resumptionToken argument is empty.');
  return bounds;
}

/** The request of checked arguments: each verb's own, a list's selection with inclusive bounds. */
function requestOf(verb: Verb, values: ReadonlyMap<string, string>, bounds: Bounds): OaiRequest {
  const identifier = values.get('identifier');
  const prefix = values.get('metadataPrefix');
  const token = values.get('resumptionToken');
  switch (verb) {
    case 'Identify':
      return { verb };
    case 'ListMetadataFormats':
      return identifier === undefined ? { verb } : { verb, identifier };
    case 'ListSets':
      return token === undefined ? { verb } : { verb, resumptionToken: token };
    case 'GetRecord':
      return { verb, identifier: identifier!, metadataPrefix: prefix! };
    default: {
      const set = values.get('set');
      const selection: Selection = {
        ...(bounds.from ? { from: bounds.from.start } : {}),
        ...(bounds.until ? { until: bounds.until.end } : {}),
        ...(set === undefined ? {} : { set }),
      };
      return token === undefined
        ? { verb, metadataPrefix: prefix!, selection }
        : { verb, resumptionToken: token, selection };
    }
  }
}

/** Checks the (name, value) pairs of one request, in the order they came. */
export function parseArguments(pairs: readonly [string, string][]): ParsedArguments {
  const verbs = pairs.filter(([name]) => name === 'verb').map(([, value]) => value);
  if (verbs.length === 0) return { errors: [oaiError('badVerb', 'The verb argument is missing.')], echo: [] };
  if (verbs.length > 1) return { errors: [oaiError('badVerb', 'The verb argument is repeated.')], echo: [] };
  const verb = verbs[0]!;
  if (!isVerb(verb)) {
    return {
      errors: [oaiError('badVerb', `"${verb}" is not a verb of OAI-PMH 2.0 (${VERBS.join(', ')}).`)],
      echo: [],
    };
  }

  // Every problem, in this order: the arguments given, those missing, the values.
  const problems: string[] = [];
  const values = argumentValues(pairs, verb, problems);
  checkPresence(verb, values, problems);
  const bounds = checkValues(values, problems);
  if (problems.length > 0) {
    return { errors: problems.map((message) => oaiError('badArgument', message)), echo: [] };
  }

  // Echoed in the canonical order; every value here is valid (§3.2).
  const echo = ARGUMENT_NAMES.filter((name) => values.has(name)).map(
    (name) => [name, values.get(name)!] as [string, string],
  );
  return { request: requestOf(verb, values, bounds), echo };
}
