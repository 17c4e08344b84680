/**
 * Input that cannot be valid whatever the operation: nesting deeper than any resource, lists and
 * texts beyond any real use, keys that reach an object's prototype, text no database can store
 * exactly (NUL, lone surrogates: `textFlaw` in src/lib/text.ts) and numbers JavaScript cannot hold
 * exactly.
 * The same walk checks raw HTTP input (src/http/request-hygiene.ts) and every GraphQL operation's
 * variables and literals (the plugin below, shared by both transports), so such input is refused
 * with a 4xx before any resolver, service or SQL sees it.
 */
import { type DocumentNode, visit } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { InvalidInputError } from '../errors.ts';
import { textFlaw } from '../lib/text.ts';

export interface InputLimits {
  /** Levels of objects and lists, the outermost counting as one. */
  maxDepth: number;
  maxArrayLength: number;
  maxStringLength: number;
  maxObjectKeys: number;
}

/** Keys that reach `Object.prototype` through ordinary property access (prototype pollution). */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

const joined = (path: string, key: string | number) =>
  typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${key}` : key;

/**
 * Where a problem lies, as a client names it: the variable, or inside `input` (the posted object of
 * legacy routes) the property itself.
 */
const variablePath = (name: string) => (name === 'input' ? '' : name);

function textProblem(text: string, path: string, limits: InputLimits): string | undefined {
  const where = path || 'texte';
  const flaw = textFlaw(text);
  if (flaw === 'nul') return `${where} : le caractère NUL est interdit`;
  if (flaw === 'lone-surrogate')
    return `${where} : texte Unicode mal formé (demi-caractère de substitution isolé, \\uD800 à \\uDFFF)`;
  if (text.length > limits.maxStringLength)
    return `${where} : texte trop long (au plus ${limits.maxStringLength} caractères)`;
  return undefined;
}

/**
 * The first reason `value` cannot be valid input, as a French message naming where it is, or
 * undefined. Iterative, so a hostile depth costs nothing but the walk up to the limit.
 */
export function inputProblem(value: unknown, limits: InputLimits, root = ''): string | undefined {
  const pending: Array<{ value: unknown; path: string; depth: number }> = [{ value, path: root, depth: 0 }];
  for (let item = pending.pop(); item; item = pending.pop()) {
    const { value: current, path, depth } = item;
    if (typeof current === 'string') {
      const problem = textProblem(current, path, limits);
      if (problem) return problem;
    } else if (typeof current === 'number') {
      if (!Number.isFinite(current) || Math.abs(current) > Number.MAX_SAFE_INTEGER)
        return `${path || 'nombre'} : nombre hors limites`;
    } else if (current !== null && typeof current === 'object') {
      if (depth >= limits.maxDepth)
        return `${root || 'entrée'} : imbrication trop profonde (au plus ${limits.maxDepth} niveaux)`;
      if (Array.isArray(current)) {
        if (current.length > limits.maxArrayLength)
          return `${path || 'liste'} : liste trop longue (au plus ${limits.maxArrayLength} éléments)`;
        current.forEach((element, index) => {
          pending.push({ value: element, path: joined(path, index), depth: depth + 1 });
        });
      } else {
        const keys = Object.keys(current);
        if (keys.length > limits.maxObjectKeys)
          return `${path || 'objet'} : trop de propriétés (au plus ${limits.maxObjectKeys})`;
        for (const key of keys) {
          if (FORBIDDEN_KEYS.has(key)) return `${joined(path, key)} : propriété interdite`;
          const problem = textProblem(key, path, limits);
          if (problem) return problem;
          pending.push({
            value: (current as Record<string, unknown>)[key],
            path: joined(path, key),
            depth: depth + 1,
          });
        }
      }
    }
  }
  return undefined;
}

/** The first problem of the literal values written in a document (strings, numbers, object keys, lists). */
function literalProblem(document: DocumentNode, limits: InputLimits): string | undefined {
  let problem: string | undefined;
  visit(document, {
    StringValue(node) {
      problem ??= textProblem(node.value, 'littéral', limits);
    },
    IntValue(node) {
      if (!Number.isSafeInteger(Number(node.value)))
        problem ??= `littéral ${node.value} : nombre hors limites`;
    },
    FloatValue(node) {
      const number = Number(node.value);
      if (!Number.isFinite(number) || Math.abs(number) > Number.MAX_SAFE_INTEGER)
        problem ??= `littéral ${node.value} : nombre hors limites`;
    },
    ListValue(node) {
      if (node.values.length > limits.maxArrayLength)
        problem ??= `littéral : liste trop longue (au plus ${limits.maxArrayLength} éléments)`;
    },
    ObjectField(node) {
      if (FORBIDDEN_KEYS.has(node.name.value))
        problem ??= `littéral : la propriété ${node.name.value} est interdite`;
    },
  });
  return problem;
}

/**
 * Refuses an operation whose variables or literals cannot be valid, before execution: a typed
 * `INVALID_INPUT` error (REST answers it as a 400). Documents are checked once each.
 */
export function useInputLimits(limits: InputLimits): Plugin {
  const literalProblems = new WeakMap<DocumentNode, string | null>();
  const check = ({
    args,
    setResultAndStopExecution,
  }: {
    args: { document: DocumentNode; variableValues?: Record<string, unknown> | null };
    setResultAndStopExecution: (result: { errors: InvalidInputError[] }) => void;
  }) => {
    let literal = literalProblems.get(args.document);
    if (literal === undefined) {
      literal = literalProblem(args.document, limits) ?? null;
      literalProblems.set(args.document, literal);
    }
    let problem = literal ?? undefined;
    for (const [name, value] of Object.entries(args.variableValues ?? {})) {
      problem ??= inputProblem(value, limits, variablePath(name));
    }
    if (problem) setResultAndStopExecution({ errors: [new InvalidInputError(problem)] });
  };
  // Subscriptions do not pass through execute: they are checked when they start.
  return { onExecute: check, onSubscribe: check };
}
