/**
 * XML Schema validation of whole OAI-PMH responses, with libxml2 (xmllint-wasm), against the schemas
 * vendored under test/schemas/ (README.md there says where each comes from).
 *
 * One entry schema, test/schemas/oai-response.xsd, imports every namespace a response of ours may
 * carry: the OAI-PMH envelope, and what it validates strictly inside `<metadata>` and `<description>`
 * (oai_dc, IEEE LOM, oai-identifier). xmllint-wasm runs xmllint in a fresh worker over an in-memory
 * file system: the entry schema is passed as `schema`, and every file it reaches by a relative
 * schemaLocation is passed as `preload` under the same relative path, so the imports resolve there
 * and nothing is fetched from the network. The files are read once per process; libxml2 itself
 * compiles them again on each call (each call is a new worker), so tests validate many documents in
 * one call where they can (`validateOaiDocuments`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { validateXML, type XMLFileInfo } from 'xmllint-wasm';

const SCHEMA_DIR = fileURLToPath(new URL('../schemas/', import.meta.url));
const ENTRY = 'oai-response.xsd';
const OAI_NS = 'http://www.openarchives.org/OAI/2.0/';

let loaded: { schema: XMLFileInfo; preload: XMLFileInfo[] } | undefined;

function listXsd(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? listXsd(join(dir, entry.name))
      : entry.name.endsWith('.xsd')
        ? [join(dir, entry.name)]
        : [],
  );
}

function schemas(): { schema: XMLFileInfo; preload: XMLFileInfo[] } {
  if (!loaded) {
    const files = listXsd(SCHEMA_DIR).map((path) => ({
      // Relative to the entry schema, with forward slashes: the paths its imports name.
      fileName: relative(SCHEMA_DIR, path).split(sep).join('/'),
      contents: readFileSync(path, 'utf8'),
    }));
    const schema = files.find((file) => file.fileName === ENTRY);
    if (!schema) throw new Error(`${ENTRY} is missing from ${SCHEMA_DIR}`);
    loaded = { schema, preload: files.filter((file) => file !== schema) };
  }
  return loaded;
}

/**
 * The entry schema declares the OAI-PMH, oai_dc, LOM and oai-identifier elements side by side, so a
 * bare `<oai_dc:dc>` or `<lom>` document would validate against it too: what makes a document a
 * response is its root element, checked here since a schema cannot say which global element is the
 * root.
 */
function rootProblem(xml: string): string | null {
  const withoutProlog = xml.replace(/^\uFEFF?(?:\s|<\?[\s\S]*?\?>|<!--[\s\S]*?-->)*/, '');
  const root = /^<([A-Za-z_][\w.-]*:)?OAI-PMH[\s/>]/.exec(withoutProlog);
  if (!root) return 'the root element is not OAI-PMH';
  const prefix = root[1] ? `:${root[1].slice(0, -1)}` : '';
  const tag = withoutProlog.slice(0, withoutProlog.indexOf('>') + 1);
  const declared = new RegExp(`\\sxmlns${prefix}\\s*=\\s*(["'])${OAI_NS.replace(/[./]/g, '\\$&')}\\1`);
  return declared.test(tag) ? null : `the root element OAI-PMH is not in the namespace ${OAI_NS}`;
}

/**
 * Validates several responses in one xmllint run; returns, per document and in order, its errors
 * (empty when valid). A document that is not even well-formed gets its parser errors.
 */
export async function validateOaiDocuments(xmls: readonly string[]): Promise<string[][]> {
  if (xmls.length === 0) return [];
  const { schema, preload } = schemas();
  const names = xmls.map((_, i) => `response-${i}.xml`);
  const result = await validateXML({
    xml: xmls.map((contents, i) => ({ fileName: names[i] as string, contents })),
    schema: [schema],
    preload,
    // A fast-check run validates a few hundred responses of up to a few hundred kB at once.
    maxMemoryPages: 4096,
  }).catch((error: unknown) => {
    // xmllint exits with a code the library does not classify (1, 4…) when a document is not
    // well-formed: the message still names the file and line, so it is split like validation errors.
    const message = error instanceof Error ? error.message : String(error);
    return { valid: false, errors: message.split('\n').map((line) => ({ rawMessage: line, loc: null })) };
  });
  return xmls.map((xml, i) => {
    const prefix = `${names[i]}:`;
    const errors = result.errors
      .map((error) => error.rawMessage)
      .filter((line) => line.startsWith(prefix) && !line.endsWith(' validates'))
      .map((line) => line.slice(prefix.length));
    const problem = rootProblem(xml);
    return problem ? [problem, ...errors] : errors;
  });
}

/** One response's errors, empty when it is valid. */
export async function validateOai(xml: string): Promise<string[]> {
  return (await validateOaiDocuments([xml]))[0] as string[];
}

/** Fails the test with libxml2's messages unless the response is valid. */
export async function expectValidOai(xml: string): Promise<void> {
  const errors = await validateOai(xml);
  const document = xml.length > 4000 ? `${xml.slice(0, 4000)}…` : xml;
  expect(errors, `${errors.join('\n')}\nin the response:\n${document}`).toEqual([]);
}
