/** Configuration: validation, sources and their precedence. */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_ROLES, loadConfig, parseConfig } from '../../src/config.ts';
import { oaiSettings } from '../../src/oai/settings.ts';
import { scratchDir } from '../support/scratch.ts';

const minimal = { baseId: 'repo', baseUrl: 'http://repo.test/', listeMax: 1000 };

function configFile(content: unknown): string {
  const file = join(scratchDir('config'), 'config.json');
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

describe('parseConfig', () => {
  it('fills defaults from the compatibility notes', () => {
    const config = parseConfig(minimal);
    expect(config).toMatchObject({
      port: 3000,
      databaseUrl: 'file:./data/repository.db',
      listeNbDefault: 25,
      maxSql: 500,
      listeMax: 1000,
      labs: [],
      peers: [],
      apiTokens: [],
      roles: DEFAULT_ROLES,
      session: { cookieName: 'connect.sid' },
      http: { bodyLimit: '8mb', labTimeoutMs: 5000 },
      lifecycle: { databaseWaitMs: 60_000, databaseRetryMs: 500, shutdownGraceMs: 8000 },
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('refuses a configuration without listeMax', () => {
    const { listeMax: _, ...withoutListeMax } = minimal;
    expect(() => parseConfig(withoutListeMax)).toThrow(ConfigError);
    expect(() => parseConfig(withoutListeMax)).toThrow(/listeMax/);
  });

  it.each([
    [{ baseUrl: 'http://repo.test' }, /baseUrl: must end with "\/"/],
    [{ baseUrl: 'not a url' }, /baseUrl/],
    [{ baseId: 'a/b' }, /baseId/],
    [{ labs: [{ baseId: 'l', baseUrl: 'http://lab.test' }] }, /labs\.0\.baseUrl/],
    [{ peers: [{ baseUrl: 'http://peer.test/' }] }, /peers\.0\.baseId/],
    [{ apiTokens: ['short'] }, /apiTokens\.0: an API token needs at least 16 characters/],
    [{ databaseUrl: 'mysql://localhost/x' }, /DATABASE_URL must start with/],
    [{ roles: { admin: ['fly'] } }, /roles\.admin\.0/],
    [{ listeNbDefault: 600 }, /listeNbDefault: must not exceed maxSql/],
    [{ listeMax: '1000' }, /listeMax/],
    [
      { lifecycle: { shutdownGraceMs: 5000 } },
      /lifecycle\.shutdownGraceMs: must exceed the longest outgoing call timeout \(5000 ms\)/,
    ],
    [{ http: { peerTimeoutMs: 9000 } }, /lifecycle\.shutdownGraceMs: must exceed .*9000 ms/],
    [{ lifecycle: { databaseWaitMs: -1 } }, /lifecycle\.databaseWaitMs/],
  ])('lists the problem of %j', (patch, message) => {
    expect(() => parseConfig({ ...minimal, ...patch })).toThrow(message);
  });

  it('lists every problem at once', () => {
    try {
      parseConfig({ baseUrl: 'x' });
      expect.unreachable();
    } catch (error) {
      expect((error as Error).message).toMatch(/baseId/);
      expect((error as Error).message).toMatch(/baseUrl/);
      expect((error as Error).message).toMatch(/listeMax/);
    }
  });
});

describe('unknown settings', () => {
  it('are refused with the setting meant, at the top and nested, so that a typo is not a silent default', () => {
    const refused = (input: object) => {
      try {
        parseConfig(input);
      } catch (error) {
        return (error as Error).message;
      }
      return expect.unreachable('accepted');
    };
    expect(refused({ ...minimal, devLogn: true })).toMatch(
      /devLogn: unknown setting; did you mean devLogin\?/,
    );
    expect(refused({ ...minimal, sesionSecret: 'x'.repeat(20) })).toMatch(
      /sesionSecret: unknown setting; did you mean sessionSecret\?/,
    );
    expect(refused({ ...minimal, session: { cookieNme: 'sid' } })).toMatch(
      /session\.cookieNme: unknown setting; did you mean cookieName\?/,
    );
    expect(refused({ ...minimal, labs: [{ baseId: 'l', baseUrl: 'http://l.test/', nmae: 'L' }] })).toMatch(
      /labs\.0\.nmae: unknown setting; did you mean name\?/,
    );
    // Nothing close: the known settings of that level are listed instead.
    expect(refused({ ...minimal, zzzzzzzz: 1 })).toMatch(/zzzzzzzz: unknown setting \(known: port, host, /);
    // Roles are names the operator chooses: any key is a role.
    expect(parseConfig({ ...minimal, roles: { auditeur: ['read'] } }).roles).toEqual({ auditeur: ['read'] });
  });
});

describe('metrics', () => {
  it('are off by default, on with a bearer token of at least 16 characters, from the file or METRICS_TOKEN', () => {
    expect(parseConfig(minimal).metrics.bearerToken).toBeUndefined();
    expect(() => parseConfig({ ...minimal, metrics: { bearerToken: 'short' } })).toThrow(
      /metrics.bearerToken/,
    );
    const file = configFile({ ...minimal, metrics: { bearerToken: 'from-the-file-0123456789' } });
    expect(loadConfig({ CONFIG_FILE: file }).metrics.bearerToken).toBe('from-the-file-0123456789');
    expect(
      loadConfig({ CONFIG_FILE: file, METRICS_TOKEN: 'from-the-environment-0123' }).metrics.bearerToken,
    ).toBe('from-the-environment-0123');
  });
});

describe('development login', () => {
  it('answers this machine only by default; devLoginAllowRemote or DEV_LOGIN_ALLOW_REMOTE opens it', () => {
    expect(parseConfig(minimal)).toMatchObject({ devLogin: false, devLoginAllowRemote: false });
    const file = configFile({ ...minimal, devLogin: true, devLoginAllowRemote: true });
    expect(loadConfig({ CONFIG_FILE: file })).toMatchObject({ devLogin: true, devLoginAllowRemote: true });
    expect(loadConfig({ CONFIG_FILE: file, DEV_LOGIN_ALLOW_REMOTE: '0' }).devLoginAllowRemote).toBe(false);
    const local = configFile({ ...minimal, devLogin: true });
    expect(loadConfig({ CONFIG_FILE: local, DEV_LOGIN_ALLOW_REMOTE: '1' }).devLoginAllowRemote).toBe(true);
    expect(() => parseConfig({ ...minimal, devLoginAllowRemote: 'yes' })).toThrow(/devLoginAllowRemote/);
  });
});

describe('heap growth', () => {
  it('is 100 % by default, 0 leaves V8 its own factor, HEAP_GROWTH_PERCENT overrides the file', () => {
    expect(parseConfig(minimal).heapGrowthPercent).toBe(100);
    expect(parseConfig({ ...minimal, heapGrowthPercent: 0 }).heapGrowthPercent).toBe(0);
    const file = configFile({ ...minimal, heapGrowthPercent: 50 });
    expect(loadConfig({ CONFIG_FILE: file }).heapGrowthPercent).toBe(50);
    expect(loadConfig({ CONFIG_FILE: file, HEAP_GROWTH_PERCENT: '30' }).heapGrowthPercent).toBe(30);
    for (const wrong of [-1, 401, 2.5]) {
      expect(() => parseConfig({ ...minimal, heapGrowthPercent: wrong })).toThrow(/heapGrowthPercent/);
    }
    expect(() => loadConfig({ CONFIG_FILE: file, HEAP_GROWTH_PERCENT: 'lots' })).toThrow(
      /HEAP_GROWTH_PERCENT=lots/,
    );
  });
});

describe('baseUrl', () => {
  const { baseUrl: _, ...unset } = minimal;

  it('is, when not configured, the address the service listens on: PORT, and HOST when it is one address', () => {
    expect(parseConfig(unset).baseUrl).toBe('http://localhost:3000/');
    expect(parseConfig({ ...unset, port: 8080 }).baseUrl).toBe('http://localhost:8080/');
    expect(parseConfig({ ...unset, port: 8080, host: '127.0.0.1' }).baseUrl).toBe('http://127.0.0.1:8080/');
    expect(parseConfig({ ...unset, port: 8080, host: '::1' }).baseUrl).toBe('http://[::1]:8080/');
    expect(parseConfig({ ...unset, port: 8080, host: 'repo.lan' }).baseUrl).toBe('http://repo.lan:8080/');
    // Every interface: the address that opens on this machine.
    for (const host of ['0.0.0.0', '::']) {
      expect(parseConfig({ ...unset, port: 8080, host }).baseUrl).toBe('http://localhost:8080/');
    }
    expect(parseConfig(unset).baseUrlFollowsListening).toBe(true);
  });

  it('follows PORT when only the environment sets it, as npm start runs with the shipped file', () => {
    const file = configFile(unset);
    expect(loadConfig({ CONFIG_FILE: file, PORT: '4100' }).baseUrl).toBe('http://localhost:4100/');
    expect(loadConfig({ CONFIG_FILE: 'config/default.json', PORT: '4100' }).baseUrl).toBe(
      'http://localhost:4100/',
    );
  });

  it('is kept as configured, from the file or BASE_URL, whatever the port (a proxy’s address may differ)', () => {
    const file = configFile(minimal);
    expect(loadConfig({ CONFIG_FILE: file, PORT: '4100' })).toMatchObject({
      baseUrl: 'http://repo.test/',
      baseUrlFollowsListening: false,
    });
    expect(
      loadConfig({ CONFIG_FILE: configFile(unset), PORT: '4100', BASE_URL: 'https://repo.example.org/' })
        .baseUrl,
    ).toBe('https://repo.example.org/');
  });
});

describe('OAI-PMH', () => {
  const secret = 'a-service-secret-0123456789';

  it('derives the repository identifier from the host of baseUrl, the name from baseId, a contact from both', () => {
    const config = parseConfig({ ...minimal, baseUrl: 'https://ressources.example.org:8443/depot/' });
    expect(config.oai).toEqual({ adminEmail: [], pageSize: 100, tokenLifetimeSeconds: 86_400 });
    expect(oaiSettings(config, secret)).toEqual({
      baseUrl: 'https://ressources.example.org:8443/depot/oai',
      repositoryIdentifier: 'ressources.example.org',
      repositoryName: 'Resource Repository Service (repo)',
      adminEmails: ['admin@ressources.example.org'],
      pageSize: 100,
      compression: ['gzip', 'deflate'],
      tokenLifetimeSeconds: 86_400,
      secret,
    });
  });

  it('falls back to repository.invalid where the host is no domain name (localhost, an IP address)', () => {
    for (const baseUrl of ['http://localhost:3000/', 'http://127.0.0.1/', 'http://[::1]/']) {
      expect(oaiSettings(parseConfig({ ...minimal, baseUrl }), secret).repositoryIdentifier).toBe(
        'repository.invalid',
      );
    }
  });

  it('takes what is configured, from the file or the environment', () => {
    const file = configFile({
      ...minimal,
      oai: {
        repositoryIdentifier: 'file.example.org',
        repositoryName: 'Dépôt',
        adminEmail: ['a@file.example'],
      },
    });
    const fromFile = oaiSettings(loadConfig({ CONFIG_FILE: file }), secret);
    expect(fromFile).toMatchObject({
      repositoryIdentifier: 'file.example.org',
      repositoryName: 'Dépôt',
      adminEmails: ['a@file.example'],
    });
    const fromEnvironment = loadConfig({
      CONFIG_FILE: file,
      OAI_REPOSITORY_IDENTIFIER: 'env.example.org',
      OAI_ADMIN_EMAIL: 'one@env.example, two@env.example',
      OAI_PAGE_SIZE: '250',
    });
    expect(fromEnvironment.oai).toMatchObject({
      repositoryIdentifier: 'env.example.org',
      repositoryName: 'Dépôt',
      adminEmail: ['one@env.example', 'two@env.example'],
      pageSize: 250,
    });
  });

  it('refuses a repository identifier outside the oai-identifier grammar, a bad address, a page too large', () => {
    for (const repositoryIdentifier of [
      'localhost',
      '1repo.example',
      'repo.example.',
      'repo_x.example',
      'a..b',
    ]) {
      expect(() => parseConfig({ ...minimal, oai: { repositoryIdentifier } })).toThrow(
        /oai\.repositoryIdentifier: must be a domain name/,
      );
    }
    expect(() => parseConfig({ ...minimal, oai: { adminEmail: ['nobody'] } })).toThrow(/oai\.adminEmail\.0/);
    expect(() => parseConfig({ ...minimal, oai: { pageSize: 1001 } })).toThrow(/oai\.pageSize/);
    expect(() => parseConfig({ ...minimal, oai: { tokenLifetimeSeconds: 10 } })).toThrow(
      /oai\.tokenLifetimeSeconds/,
    );
  });
});

describe('loadConfig', () => {
  it('reads config/default.json by default, which is complete', () => {
    const config = loadConfig({});
    expect(config.baseId).toBe('local');
    expect(config.listeMax).toBe(1000);
  });

  it('lets environment variables override the file', () => {
    const config = loadConfig({
      CONFIG_FILE: configFile({ ...minimal, apiTokens: ['from-file-0123456789'] }),
      PORT: '4123',
      DATABASE_URL: 'postgresql://u:p@db:5432/repo',
      BASE_ID: 'env-id',
      BASE_URL: 'https://env.example/',
      API_TOKENS: ' first-token-0123456789 ,second-token-0123456789,',
      SESSION_SECRET: 'env-session-secret-0123',
      HOST: '127.0.0.1',
    });
    expect(config).toMatchObject({
      port: 4123,
      host: '127.0.0.1',
      databaseUrl: 'postgresql://u:p@db:5432/repo',
      baseId: 'env-id',
      baseUrl: 'https://env.example/',
      apiTokens: ['first-token-0123456789', 'second-token-0123456789'],
      sessionSecret: 'env-session-secret-0123',
    });
  });

  it.each([
    ['a missing file', () => '/nonexistent/config.json', /Cannot read configuration file/],
    ['a file that is not JSON', () => configFile('{ nope'), /Cannot read configuration file/],
    ['a file holding an array', () => configFile([]), /must hold a JSON object/],
  ])('reports %s', (_label, file, message) => {
    expect(() => loadConfig({ CONFIG_FILE: file() })).toThrow(message);
  });
});

/**
 * Every variable loadConfig maps, given a wrong value: the message names the variable and the value
 * the operator typed (a secret masked), and says what is expected, never the configuration path.
 */
const WRONG_ENVIRONMENT: { name: string; value: string; expected: RegExp; secret?: boolean; path: string }[] =
  [
    {
      name: 'PORT',
      value: 'abc',
      expected: /^ {2}- PORT=abc: expected a port number 0-65535 /m,
      path: 'port',
    },
    {
      name: 'HOST',
      value: 'http://0.0.0.0',
      expected: /HOST=http:\/\/0\.0\.0\.0: expected an address/,
      path: 'host',
    },
    {
      name: 'DATABASE_URL',
      value: 'mysql://user:hunter2-secret@db/x',
      expected:
        /DATABASE_URL=mysql:\/\/user:\*\*\*@db\/x: expected a "file:" \(SQLite\) or "postgresql:\/\/"/,
      secret: true,
      path: 'databaseUrl',
    },
    { name: 'BASE_ID', value: 'a/b', expected: /BASE_ID=a\/b: expected an identifier/, path: 'baseId' },
    {
      name: 'BASE_URL',
      value: 'http://repo.test',
      expected: /BASE_URL=http:\/\/repo\.test: expected .*ending with "\/"/,
      path: 'baseUrl',
    },
    {
      name: 'API_TOKENS',
      value: 'a-long-enough-token-0123,short-secret',
      expected: /API_TOKENS=\*\*\* \(2 tokens\): expected .*at least 16 characters/,
      secret: true,
      path: 'apiTokens',
    },
    {
      name: 'SESSION_SECRET',
      value: 'tiny-secret',
      expected: /SESSION_SECRET=\*\*\* \(11 characters\): expected .*at least 16 characters/,
      secret: true,
      path: 'sessionSecret',
    },
    {
      name: 'LOG_LEVEL',
      value: 'loud',
      expected: /LOG_LEVEL=loud: expected one of fatal, error, warn, info/,
      path: 'logLevel',
    },
    {
      name: 'HEAP_GROWTH_PERCENT',
      value: 'lots',
      expected: /HEAP_GROWTH_PERCENT=lots: expected a whole number of percent 0-400/,
      path: 'heapGrowthPercent',
    },
    {
      name: 'METRICS_TOKEN',
      value: 'abc',
      expected: /METRICS_TOKEN=\*\*\* \(3 characters\): expected .*at least 16 characters/,
      secret: true,
      path: 'metrics.bearerToken',
    },
    {
      name: 'REDIS_URL',
      value: 'http://cache:6379',
      expected: /REDIS_URL=http:\/\/cache:6379: expected a redis:\/\/ or rediss:\/\/ URL/,
      path: 'rateLimits.redisUrl',
    },
    {
      name: 'OAI_REPOSITORY_IDENTIFIER',
      value: 'localhost',
      expected: /OAI_REPOSITORY_IDENTIFIER=localhost: expected a domain name of two labels or more/,
      path: 'oai.repositoryIdentifier',
    },
    {
      name: 'OAI_ADMIN_EMAIL',
      value: 'oai@repo.example,nobody',
      expected: /OAI_ADMIN_EMAIL=oai@repo\.example,nobody: expected e-mail addresses separated by commas/,
      path: 'oai.adminEmail',
    },
    {
      name: 'OAI_PAGE_SIZE',
      value: '0',
      expected: /OAI_PAGE_SIZE=0: expected a whole number of records per page, 1-1000/,
      path: 'oai.pageSize',
    },
    {
      name: 'DEV_LOGIN',
      value: 'maybe',
      expected: /DEV_LOGIN=maybe: expected true or false/,
      path: 'devLogin',
    },
    {
      name: 'DEV_LOGIN_ALLOW_REMOTE',
      value: 'sometimes',
      expected: /DEV_LOGIN_ALLOW_REMOTE=sometimes: expected true or false/,
      path: 'devLoginAllowRemote',
    },
  ];

describe('environment variables given a wrong value', () => {
  const messageOf = (env: NodeJS.ProcessEnv) => {
    try {
      loadConfig({ CONFIG_FILE: configFile(minimal), ...env });
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as Error).message;
    }
    return expect.unreachable('accepted');
  };

  it.each(WRONG_ENVIRONMENT)('$name=$value is refused naming the variable and what it expects', (wrong) => {
    const message = messageOf({ [wrong.name]: wrong.value });
    expect(message).toMatch(wrong.expected);
    expect(message).not.toContain(`${wrong.path}:`);
    if (wrong.secret) {
      for (const part of wrong.value.split(/[,:@]/).filter((part) => part.includes('secret'))) {
        expect(message).not.toContain(part);
      }
    }
  });

  it('covers every variable loadConfig reads', () => {
    const source = readFileSync('src/config.ts', 'utf8');
    const read = new Set(
      [...source.matchAll(/\benv\.([A-Z_]+)|\bname: '([A-Z_]+)'/g)].map((m) => m[1] ?? m[2]),
    );
    for (const own of ['CONFIG_FILE', 'NODE_ENV']) read.delete(own);
    expect([...read].sort()).toEqual(WRONG_ENVIRONMENT.map((wrong) => wrong.name).sort());
  });

  it('lists each wrong variable once, beside the problems of the file', () => {
    const message = (() => {
      try {
        loadConfig({ CONFIG_FILE: configFile({ ...minimal, maxSql: 0 }), PORT: '-1', METRICS_TOKEN: 'abc' });
      } catch (error) {
        return (error as Error).message;
      }
      return '';
    })();
    expect(message.match(/PORT=/g)).toHaveLength(1);
    expect(message).toMatch(/^ {2}- maxSql: /m);
    expect(message).toMatch(/^ {2}- METRICS_TOKEN=/m);
  });

  it('still takes the usual spellings of DEV_LOGIN, an empty one being off', () => {
    const devLogin = (value: string) =>
      loadConfig({ CONFIG_FILE: configFile(minimal), DEV_LOGIN: value }).devLogin;
    for (const on of ['1', 'true', 'YES', ' on ']) expect(devLogin(on)).toBe(true);
    for (const off of ['0', 'false', 'no', 'off', '']) expect(devLogin(off)).toBe(false);
  });
});

describe('retention and logging settings', () => {
  it('default to a purge every hour, audit entries pseudonymised after a year, stale persons only listed, addresses truncated', () => {
    const config = parseConfig(minimal);
    expect(config.privacy.retention).toEqual({
      purgeIntervalSeconds: 3600,
      purgeLeaseSeconds: 600,
      auditEntries: { afterDays: 365, action: 'pseudonymise' },
      stalePersons: { afterDays: 90, action: 'list' },
    });
    expect(config.logging).toEqual({ clientAddress: 'truncated' });
  });

  it.each([
    [{ privacy: { retention: { purgeIntervalSeconds: -1 } } }, /privacy\.retention\.purgeIntervalSeconds/],
    [{ privacy: { retention: { purgeIntervalSeconds: 1.5 } } }, /privacy\.retention\.purgeIntervalSeconds/],
    [{ privacy: { retention: { purgeLeaseSeconds: 1 } } }, /privacy\.retention\.purgeLeaseSeconds/],
    [
      { privacy: { retention: { auditEntries: { afterDays: 0 } } } },
      /privacy\.retention\.auditEntries\.afterDays/,
    ],
    [{ privacy: { retention: { auditEntries: { action: 'anonymise' } } } }, /auditEntries\.action/],
    [{ privacy: { retention: { stalePersons: { afterDays: '90' } } } }, /stalePersons\.afterDays/],
    [{ privacy: { retention: { stalePersons: { action: 'delete' } } } }, /stalePersons\.action/],
    [
      { privacy: { retention: { stalePerson: {} } } },
      /privacy\.retention\.stalePerson: unknown setting; did you mean stalePersons\?/,
    ],
    [{ logging: { clientAddress: 'partial' } }, /logging\.clientAddress/],
  ])('refuses %j', (patch, message) => {
    expect(() => parseConfig({ ...minimal, ...patch })).toThrow(message);
  });

  it('accepts a purge switched off and erasure of stale persons after the 90 days of the ENT frame', () => {
    const config = parseConfig({
      ...minimal,
      privacy: { retention: { purgeIntervalSeconds: 0, stalePersons: { afterDays: 90, action: 'erase' } } },
      logging: { clientAddress: 'none' },
    });
    expect(config.privacy.retention).toMatchObject({
      purgeIntervalSeconds: 0,
      stalePersons: { action: 'erase' },
    });
    expect(config.logging.clientAddress).toBe('none');
  });
});
