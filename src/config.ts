/**
 * The service configuration: one typed, frozen object, validated with zod at start. Sources, later
 * ones winning: the JSON file (`CONFIG_FILE`, default config/default.json), then environment
 * variables (`PORT`, `DATABASE_URL`, `METRICS_TOKEN`…: the ENVIRONMENT table below). A wrong value
 * set in a variable is reported under the variable's name, as the operator typed it.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { DEFAULT_DATABASE_URL, providerOf, redact } from './db/database-url.ts';
import { CLIENT_ADDRESS_LOGGING } from './logging/client-address.ts';
import { PERMISSIONS, type Permission } from './permissions.ts';

/**
 * An OAI-PMH repository identifier (the oai-identifier guidelines, and the pattern of
 * oai-identifier.xsd): a domain name of two labels or more, each starting with a letter. Here
 * rather than in src/oai/, which reads the configuration: the layers import downwards only.
 */
export const REPOSITORY_IDENTIFIER = /^[a-zA-Z][a-zA-Z0-9-]*(\.[a-zA-Z][a-zA-Z0-9-]*)+$/;

const baseUrl = z
  .string()
  .url()
  .refine((url) => url.endsWith('/'), 'must end with "/"');

/** Role → permissions, as in the compatibility notes (§2). `allRights` is the token-level right. */
export const DEFAULT_ROLES: Record<string, Permission[]> = {
  admin: [...PERMISSIONS],
  // Everything but the token-level right, operating the service, the audit log and personal data.
  editeur: PERMISSIONS.filter(
    (permission) =>
      permission !== 'allRights' &&
      permission !== 'managePeerNotifications' &&
      permission !== 'readAudit' &&
      permission !== 'managePersonalData',
  ),
  indexateur: ['index', 'createGroupe'],
  formateur: ['create', 'read', 'createGroupe'],
  acces_correction: ['correction'],
  eleve: ['read'],
};

export const configSchema = z
  .object({
    port: z.coerce.number().int().min(0).max(65535).default(3000),
    /** Address to listen on; every interface when absent. */
    host: z
      .string()
      .min(1)
      .regex(/^[^\s/]+$/, 'must be a host name or an IP address, without scheme or path')
      .refine((host) => !/^[^:]+:\d+$/.test(host), 'must not carry a port (that is the port setting)')
      .optional(),
    databaseUrl: z
      .string()
      .default(DEFAULT_DATABASE_URL)
      .superRefine((url, ctx) => {
        try {
          providerOf(url);
        } catch (error) {
          ctx.addIssue({ code: 'custom', message: (error as Error).message });
        }
      }),
    baseId: z
      .string()
      .min(1)
      .regex(/^[^/\s]+$/, 'must not contain "/" or spaces'),
    /** Absent: the address the service listens on (`listeningUrl`), once it listens. */
    baseUrl: baseUrl.optional(),
    labs: z.array(z.object({ baseId: z.string().min(1), baseUrl, name: z.string().optional() })).default([]),
    peers: z
      .array(z.object({ baseId: z.string().min(1), baseUrl, apiToken: z.string().min(1).optional() }))
      .default([]),
    apiTokens: z.array(z.string().min(16, 'an API token needs at least 16 characters')).default([]),
    /** Signs session cookies. When absent, a secret is generated once and shared through the database. */
    sessionSecret: z.string().min(16, 'needs at least 16 characters').optional(),
    listeNbDefault: z.number().int().positive().default(25),
    maxSql: z.number().int().positive().default(500),
    listeMax: z.number().int().positive(),
    roles: z.record(z.string(), z.array(z.enum(PERMISSIONS))).default(DEFAULT_ROLES),
    session: z
      .object({
        cookieName: z.string().min(1).default('connect.sid'),
        maxAgeSeconds: z
          .number()
          .int()
          .positive()
          .default(60 * 60 * 24 * 7),
        // Labs call the service from their own site: production behind HTTPS wants "none".
        sameSite: z.enum(['lax', 'strict', 'none']).default('lax'),
        secure: z.union([z.boolean(), z.literal('auto')]).default('auto'),
        /** Interval of the expired-session sweep; 0 disables it. */
        sweepIntervalSeconds: z.number().int().min(0).default(600),
      })
      .prefault({}),
    http: z
      .object({
        bodyLimit: z.string().default('8mb'),
        /** Express `trust proxy`: set when behind a load balancer so client addresses and HTTPS are seen. */
        trustProxy: z.union([z.boolean(), z.number(), z.string()]).default(false),
        labTimeoutMs: z.number().int().positive().default(5000),
        peerTimeoutMs: z.number().int().positive().default(3000),
        /** `deferPost` forwarding to a lab. */
        deferPostTimeoutMs: z.number().int().positive().default(3000),
        maxResponseBytes: z
          .number()
          .int()
          .positive()
          .default(2 * 1024 * 1024),
      })
      .prefault({}),
    /** Delivery of notifications to peers (src/modules/peers/outbox-worker.ts). */
    outbox: z
      .object({
        pollIntervalMs: z.number().int().positive().default(2000),
        /** How long a claimed message stays reserved to the instance delivering it. */
        leaseMs: z.number().int().positive().default(30_000),
        batchSize: z.number().int().positive().default(20),
        /** Attempts before a message is marked failed. */
        maxAttempts: z.number().int().positive().default(12),
        /** Delay after the first failure; doubled on each further failure, up to `retryMaxMs`. */
        retryBaseMs: z.number().int().positive().default(2000),
        retryMaxMs: z.number().int().positive().default(3_600_000),
      })
      .prefault({}),
    /**
     * Input no operation could accept (src/security/input-limits.ts), refused with a 400 before any
     * resolver or SQL: nesting, list and text sizes, keys per object; the filters of a list and the values of each.
     */
    input: z
      .object({
        maxDepth: z.number().int().positive().default(64),
        maxArrayLength: z.number().int().positive().default(10_000),
        maxStringLength: z.number().int().positive().default(1_000_000),
        maxObjectKeys: z.number().int().positive().default(10_000),
        maxFilterValues: z.number().int().positive().default(1000),
        /**
         * Filters of one list request (the plain index parameters included): a resource has about
         * twenty indexes, and each filter is a condition of the list's statement.
         */
        maxFilters: z.number().int().positive().default(50),
      })
      .prefault({}),
    /**
     * Failed authentications (src/security/abuse-limits.ts): once a client address, or one subject
     * (a lab credential, an API token, a checked pid), has failed this often within the window, its
     * further attempts are answered 429 until the window ends. Successes are never counted. Counters
     * live in the service database (shared by every instance), or in Redis when `redisUrl` is set.
     */
    rateLimits: z
      .object({
        enabled: z.boolean().default(true),
        windowSeconds: z.number().int().positive().default(900),
        /** A whole school often shares one address: keep it generous. */
        failuresPerAddress: z.number().int().positive().default(100),
        failuresPerSubject: z.number().int().positive().default(10),
        redisUrl: z
          .string()
          .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')
          .optional(),
      })
      .prefault({}),
    graphql: z
      .object({
        maxDepth: z.number().int().positive().default(12),
        /** Introspection's own depth limit: the query GraphiQL sends is 15 fields deep. */
        maxIntrospectionDepth: z.number().int().positive().default(16),
        maxAliases: z.number().int().positive().default(20),
        maxCost: z.number().int().positive().default(5000),
        maxTokens: z.number().int().positive().default(5000),
        maxDirectives: z.number().int().positive().default(20),
        /** GraphiQL at GET /graphql in a browser: the schema is the API's documentation. */
        graphiql: z.boolean().default(true),
        /** Schema introspection (`__schema`, `__type`); GraphiQL needs it. */
        introspection: z.boolean().default(true),
        /** Shows the original message of unexpected errors; never in production. */
        exposeInternalErrors: z.boolean().default(false),
      })
      .prefault({}),
    /**
     * Anonymous public reads (`/api/public/…`, `publicResource…` in GraphQL) answered from memory
     * until anything changes in the database (src/gateway/response-cache.ts).
     */
    responseCache: z
      .object({
        enabled: z.boolean().default(true),
        maxEntries: z.number().int().positive().default(2000),
        /** A bound on top of the invalidation, for changes made outside any service instance. */
        ttlSeconds: z.number().int().positive().default(300),
      })
      .prefault({}),
    /** GraphQL subscriptions over Server-Sent Events (src/modules/subscriptions/). */
    subscriptions: z
      .object({
        /** Open subscriptions per caller (a person, the token callers, an anonymous client address). */
        maxPerCaller: z.number().int().positive().default(10),
        /** Open subscriptions of the instance, all callers together. */
        maxTotal: z.number().int().positive().default(1000),
        /** Changes heard within this window are checked once (each check reads the database). */
        debounceMs: z.number().int().min(0).default(100),
        /** Matching resources a `searchChanged` compares one by one; its total is always exact. */
        maxSearchResources: z.number().int().positive().default(500),
      })
      .prefault({}),
    /**
     * `devLogin` (GraphQL) and `POST /api/dev/connexion` log anyone in by pid, without a lab: for
     * development only. The service refuses to start with it when NODE_ENV=production.
     */
    devLogin: z.boolean().default(false),
    /**
     * The development login answers callers on loopback only (src/security/loopback.ts), since
     * anyone it answers can make themselves administrator; this opens it to every address (a
     * container, a phone on the local network).
     */
    devLoginAllowRemote: z.boolean().default(false),
    /**
     * Prometheus metrics at `GET /metrics` (src/observability/metrics.ts): served, and collected,
     * only when a bearer token is configured; scrapers send `Authorization: Bearer <token>`.
     */
    metrics: z
      .object({
        bearerToken: z.string().min(16, 'needs at least 16 characters').optional(),
      })
      .prefault({}),
    logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /** What the logs say about clients (src/logging/client-address.ts, docs/privacy.md "Retention"). */
    logging: z
      .object({
        /**
         * Client addresses in log lines: `truncated` keeps the network (IPv4 /24, IPv6 /48), enough
         * to tell a school's network from another, not which device; `none` drops them.
         */
        clientAddress: z.enum(CLIENT_ADDRESS_LOGGING).default('truncated'),
      })
      .prefault({}),
    /** Personal data (docs/privacy.md). */
    privacy: z
      .object({
        /** How long personal data is kept (src/modules/privacy/retention.service.ts, purge-job.ts). */
        retention: z
          .object({
            /** Interval of the purge rounds the service runs (one instance at a time); 0 disables them. */
            purgeIntervalSeconds: z.number().int().min(0).default(3600),
            /** How long a round may hold the purge before another instance may take it over. */
            purgeLeaseSeconds: z.number().int().min(10).default(600),
            /** Audit entries older than `afterDays`: pseudonymised (the entry stays) or deleted. */
            auditEntries: z
              .object({
                afterDays: z.number().int().min(1).default(365),
                action: z.enum(['pseudonymise', 'delete']).default('pseudonymise'),
              })
              .prefault({}),
            /**
             * Persons with no login for `afterDays` (never logged in: since their creation) who
             * authored nothing: listed for review (`rrs person stale`), erased only with `erase`.
             */
            stalePersons: z
              .object({
                afterDays: z.number().int().min(1).default(90),
                action: z.enum(['list', 'erase']).default('list'),
              })
              .prefault({}),
          })
          .prefault({}),
        erasure: z
          .object({
            /**
             * Who takes over a resource nobody else could read or change once its only author is
             * erased (src/modules/privacy/erasure.service.ts); unset, such a resource is deleted.
             * `rrs config check` checks that it names an existing person.
             */
            successorPid: z
              .string()
              .regex(/^[^/]+\/.+$/, 'must be a pid, <origin>/<id>')
              .optional(),
          })
          .prefault({}),
      })
      .prefault({}),
    /**
     * How far the JavaScript heap may grow past what the last full collection kept before the next
     * one, in percent (applied by src/start.ts). 0 leaves V8 its own factor, which under load
     * lets the heap reach several times its live size: docs/operations.md, "Memory".
     */
    heapGrowthPercent: z.number().int().min(0).max(400).default(100),
    /**
     * The OAI-PMH 2.0 data provider at `/oai` (src/oai/, docs/oai-pmh.md). Defaults resolved by
     * src/oai/settings.ts: the repository identifier is the host of `baseUrl` when it is a domain
     * name (else `repository.invalid`), the name is made from `baseId`, and without adminEmail
     * Identify gives `admin@<repositoryIdentifier>` (`rrs config check` reports both in production).
     */
    oai: z
      .object({
        /** `oai:<repositoryIdentifier>:<oid>` identifiers: a domain name, every label starting with a letter. */
        repositoryIdentifier: z
          .string()
          .regex(
            REPOSITORY_IDENTIFIER,
            'must be a domain name of two labels or more, each starting with a letter (oai-identifier), e.g. repo.example.org',
          )
          .optional(),
        repositoryName: z.string().min(1).optional(),
        /** Identify's adminEmail, one or more. */
        adminEmail: z.array(z.email('must be an e-mail address, e.g. oai@example.org')).default([]),
        pageSize: z.number().int().min(1).max(1000).default(100),
        tokenLifetimeSeconds: z.number().int().min(60).default(86_400),
      })
      .prefault({}),
    /** Personal data (docs/privacy.md). */
    /** Start-up and shutdown (src/start.ts). */
    lifecycle: z
      .object({
        /** How long a start waits for the database to answer before giving up (exit 1). */
        databaseWaitMs: z.number().int().min(0).default(60_000),
        /** First pause between attempts; doubled after each, up to 5 s. */
        databaseRetryMs: z.number().int().positive().default(500),
        /** After SIGTERM, how long requests in flight may take before their connections are cut. */
        shutdownGraceMs: z.number().int().positive().default(8000),
      })
      .prefault({}),
  })
  .superRefine((config, ctx) => {
    if (config.listeNbDefault > config.maxSql) {
      ctx.addIssue({ code: 'custom', path: ['listeNbDefault'], message: 'must not exceed maxSql' });
    }
    // A request waiting on a lab or a peer must be able to finish while the service stops.
    const longestCall = Math.max(
      config.http.labTimeoutMs,
      config.http.peerTimeoutMs,
      config.http.deferPostTimeoutMs,
    );
    if (config.lifecycle.shutdownGraceMs <= longestCall) {
      ctx.addIssue({
        code: 'custom',
        path: ['lifecycle', 'shutdownGraceMs'],
        message: `must exceed the longest outgoing call timeout (${longestCall} ms)`,
      });
    }
  });

type ParsedConfig = z.infer<typeof configSchema>;

export type Config = Readonly<
  Omit<ParsedConfig, 'baseUrl'> & {
    /** The public address of the service, ending with `/`: its own links are built from it. */
    baseUrl: string;
    /**
     * baseUrl was not configured: it is the address the service listens on, so that a newcomer who
     * sets only PORT gets links that open (server.ts sets the port once known, PORT=0 included).
     */
    baseUrlFollowsListening: boolean;
  }
>;
export type ConfigInput = z.input<typeof configSchema>;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** The schema a wrapper (default, optional, a transform's input…) stands for. */
function unwrapped(schema: z.ZodType): z.ZodType {
  const def = schema.def as { type: string; innerType?: z.ZodType; in?: z.ZodType };
  if (def.innerType) return unwrapped(def.innerType);
  if (def.type === 'pipe' && def.in) return unwrapped(def.in);
  return schema;
}

/** Edits from one name to the other (insertions, deletions, substitutions). */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * Settings the schema does not know, where a misspelled key would otherwise be ignored and its
 * setting silently left at its default (`devLogn`, `sesionSecret`): each with the closest known
 * name, or the known names of its level. Records (roles) take any key.
 */
function unknownSettings(schema: z.ZodType, input: unknown, path: string[] = []): string[] {
  const inner = unwrapped(schema);
  if (inner instanceof z.ZodArray && Array.isArray(input)) {
    return input.flatMap((item, i) =>
      unknownSettings(inner.element as z.ZodType, item, [...path, String(i)]),
    );
  }
  if (
    !(inner instanceof z.ZodObject) ||
    typeof input !== 'object' ||
    input === null ||
    Array.isArray(input)
  ) {
    return [];
  }
  const shape = inner.shape as Record<string, z.ZodType>;
  const known = Object.keys(shape);
  return Object.entries(input).flatMap(([key, value]) => {
    const at = [...path, key];
    if (Object.hasOwn(shape, key)) return unknownSettings(shape[key]!, value, at);
    const [closest] = known
      .map((name) => ({ name, edits: distance(key.toLowerCase(), name.toLowerCase()) }))
      .sort((a, b) => a.edits - b.edits);
    const near = closest && closest.edits <= Math.max(2, Math.floor(key.length / 4));
    return [
      `  - ${at.join('.')}: unknown setting${near ? `; did you mean ${closest.name}?` : ` (known: ${known.join(', ')})`}`,
    ];
  });
}

/** Validates a configuration object; throws a ConfigError listing every problem. */
export function parseConfig(input: unknown, fromEnvironment: EnvironmentValues = []): Config {
  const result = configSchema.safeParse(input);
  const named = new Set<EnvironmentSetting>();
  const issues = result.success
    ? []
    : result.error.issues.flatMap((issue) => {
        // A value the operator set in a variable is named as they typed it, once.
        const given = fromEnvironment.find(({ setting }) =>
          setting.path.every((key, i) => issue.path[i] === key),
        );
        if (!given) return [`  - ${issue.path.join('.') || '(root)'}: ${issue.message}`];
        if (named.has(given.setting)) return [];
        named.add(given.setting);
        return [`  - ${shownVariable(given.setting, given.value)}: expected ${given.setting.expected}`];
      });
  const problems = [...unknownSettings(configSchema, input), ...issues];
  if (!result.success || problems.length > 0) {
    throw new ConfigError(`Invalid configuration:\n${problems.join('\n')}`);
  }
  const { baseUrl, ...settings } = result.data;
  return Object.freeze({
    ...settings,
    baseUrl: baseUrl ?? listeningUrl(settings.host, settings.port),
    baseUrlFollowsListening: baseUrl === undefined,
  });
}

/** The host to open in a browser: the one listened on, or localhost when it is every interface. */
function openableHost(host: string | undefined): string {
  if (!host || host === '0.0.0.0' || host === '::') return 'localhost';
  return host.includes(':') ? `[${host}]` : host;
}

/** The address of a service listening on `host` (every interface when absent) and `port`. */
export function listeningUrl(host: string | undefined, port: number): string {
  return `http://${openableHost(host)}:${port}/`;
}

/** The configuration once the service listens on `port`: a baseUrl that follows it names it. */
export function listeningOn(config: Config, port: number): Config {
  if (!config.baseUrlFollowsListening || port === config.port) return config;
  return Object.freeze({ ...config, baseUrl: listeningUrl(config.host, port) });
}

/** An environment variable that overrides one setting of the file. */
interface EnvironmentSetting {
  name: string;
  /** The setting it overrides, e.g. `['metrics', 'bearerToken']`. */
  path: [string] | [string, string];
  /** What a valid value is, as the operator would write it. */
  expected: string;
  /** Shown masked in messages (tokens, secrets); a URL is shown with its password masked. */
  secret?: 'value' | 'list' | 'url';
  /** Also taken when set but empty (an empty list, off). */
  emptyCounts?: boolean;
  /** The value the setting takes; by default the text itself. */
  read?: (value: string) => unknown;
}

type EnvironmentValues = { setting: EnvironmentSetting; value: string }[];

const TRUE = /^(1|true|yes|on)$/i;
const FALSE = /^(0|false|no|off|)$/i;

/** Every variable loadConfig reads besides CONFIG_FILE and NODE_ENV (documented in the README). */
const ENVIRONMENT: EnvironmentSetting[] = [
  { name: 'PORT', path: ['port'], expected: 'a port number 0-65535 (0: any free port)' },
  { name: 'HOST', path: ['host'], expected: 'an address to listen on, e.g. 127.0.0.1 or ::' },
  {
    name: 'DATABASE_URL',
    path: ['databaseUrl'],
    secret: 'url',
    expected: 'a "file:" (SQLite) or "postgresql://" (PostgreSQL) URL',
  },
  { name: 'BASE_ID', path: ['baseId'], expected: 'an identifier without "/" or spaces, e.g. myrepo' },
  {
    name: 'BASE_URL',
    path: ['baseUrl'],
    expected: 'the public URL of the service, ending with "/", e.g. https://repo.example.org/',
  },
  {
    name: 'API_TOKENS',
    path: ['apiTokens'],
    secret: 'list',
    emptyCounts: true,
    expected: 'API tokens separated by commas, each of at least 16 characters',
    read: (value) =>
      value
        .split(',')
        .map((token) => token.trim())
        .filter(Boolean),
  },
  {
    name: 'SESSION_SECRET',
    path: ['sessionSecret'],
    secret: 'value',
    expected: 'a secret of at least 16 characters',
  },
  {
    name: 'LOG_LEVEL',
    path: ['logLevel'],
    expected: `one of ${configSchema.shape.logLevel.unwrap().options.join(', ')}`,
  },
  {
    name: 'HEAP_GROWTH_PERCENT',
    path: ['heapGrowthPercent'],
    expected: 'a whole number of percent 0-400 (0: V8 decides)',
    read: Number,
  },
  {
    name: 'METRICS_TOKEN',
    path: ['metrics', 'bearerToken'],
    secret: 'value',
    expected: 'a bearer token of at least 16 characters',
  },
  {
    name: 'REDIS_URL',
    path: ['rateLimits', 'redisUrl'],
    secret: 'url',
    expected: 'a redis:// or rediss:// URL',
  },
  {
    name: 'OAI_REPOSITORY_IDENTIFIER',
    path: ['oai', 'repositoryIdentifier'],
    expected: 'a domain name of two labels or more, each starting with a letter, e.g. repo.example.org',
  },
  {
    name: 'OAI_ADMIN_EMAIL',
    path: ['oai', 'adminEmail'],
    expected: 'e-mail addresses separated by commas, e.g. oai@example.org',
    read: (value) =>
      value
        .split(',')
        .map((email) => email.trim())
        .filter(Boolean),
  },
  {
    name: 'OAI_PAGE_SIZE',
    path: ['oai', 'pageSize'],
    expected: 'a whole number of records per page, 1-1000',
    read: Number,
  },
  {
    name: 'DEV_LOGIN',
    path: ['devLogin'],
    emptyCounts: true,
    expected: 'true or false (or 1/0, yes/no, on/off)',
    // Anything else stays text, which the setting refuses.
    read: (value) => (TRUE.test(value.trim()) ? true : FALSE.test(value.trim()) ? false : value),
  },
  {
    name: 'DEV_LOGIN_ALLOW_REMOTE',
    path: ['devLoginAllowRemote'],
    emptyCounts: true,
    expected: 'true or false (or 1/0, yes/no, on/off)',
    read: (value) => (TRUE.test(value.trim()) ? true : FALSE.test(value.trim()) ? false : value),
  },
];

/** `NAME=value` as a message may show it: secrets masked, with only their length. */
function shownVariable(setting: EnvironmentSetting, value: string): string {
  if (setting.secret === 'value') return `${setting.name}=*** (${value.length} characters)`;
  if (setting.secret === 'list') {
    const count = value.split(',').filter((token) => token.trim()).length;
    return `${setting.name}=*** (${count} token${count === 1 ? '' : 's'})`;
  }
  if (setting.secret === 'url') return `${setting.name}=${redact(value)}`;
  return `${setting.name}=${value}`;
}

/** Reads the JSON file and the environment, then validates. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const file = env.CONFIG_FILE || 'config/default.json';
  let fromFile: Record<string, unknown>;
  try {
    fromFile = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ConfigError(`Cannot read configuration file ${file}: ${(error as Error).message}`);
  }
  if (typeof fromFile !== 'object' || fromFile === null || Array.isArray(fromFile)) {
    throw new ConfigError(`Configuration file ${file} must hold a JSON object`);
  }
  const input: Record<string, unknown> = { ...fromFile };
  const given: EnvironmentValues = [];
  for (const setting of ENVIRONMENT) {
    const value = env[setting.name];
    if (value === undefined || (value === '' && !setting.emptyCounts)) continue;
    given.push({ setting, value });
    const taken = setting.read ? setting.read(value) : value;
    const [key, nested] = setting.path;
    if (nested === undefined) {
      input[key] = taken;
    } else {
      // The variable overrides one setting of the file's section, keeping its others.
      const section = input[key];
      input[key] = { ...(typeof section === 'object' ? section : {}), [nested]: taken };
    }
  }
  const config = parseConfig(input, given);
  assertFitForEnvironment(config, env);
  return config;
}

/** Settings that must never reach production, refused with one line that says what to do. */
export function assertFitForEnvironment(config: Config, env: NodeJS.ProcessEnv = process.env): void {
  if (config.devLogin && env.NODE_ENV === 'production') {
    throw new ConfigError(
      'devLogin logs anyone in without a lab: turn it off (configuration "devLogin", or DEV_LOGIN) when NODE_ENV=production',
    );
  }
}
