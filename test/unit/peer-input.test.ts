/**
 * The REST layer's wire checks of peer and lab bodies (src/legacy/peer-input.ts): what they
 * hand to GraphQL, and the enum values they accept, held to the printed schema's.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { buildSchema, type GraphQLEnumType } from 'graphql';
import { expect, it } from 'vitest';
import {
  deferPostInput,
  externalUpdateInput,
  listenerInput,
  PEER_LISTENER_ACTIONS,
} from '../../src/legacy/peer-input.ts';

it('accepts as an action exactly the values of the PeerListenerAction enum', () => {
  const schema = buildSchema(readFileSync(resolve(import.meta.dirname, '../../schema.graphql'), 'utf8'));
  const actions = (schema.getType('PeerListenerAction') as GraphQLEnumType).getValues().map((v) => v.name);
  expect([...PEER_LISTENER_ACTIONS].sort()).toEqual(actions.sort());
});

it('hands GraphQL the input fields only, values as they were sent', () => {
  expect(listenerInput({ action: 'add', baseId: '', rids: [], autre: 1 })).toEqual({
    action: 'add',
    baseId: '',
    rids: [],
  });
  // What the values mean is the service's: an empty baseId, a Ref that is no Ref pass through.
  expect(externalUpdateInput({ ref: 3, eventId: '', autre: 1 })).toEqual({ ref: 3, eventId: '' });
  expect(externalUpdateInput({ ref: {} })).toEqual({ ref: {} });
  expect(externalUpdateInput({ ref: {}, eventId: null })).toEqual({ ref: {}, eventId: null });
  expect(deferPostInput({}, '{"deferUrl": "http://lab/x", "score": 1}')).toEqual({
    deferUrl: 'http://lab/x',
    payload: { score: 1 },
  });
  expect(deferPostInput({ deferUrl: 7, score: 1 }, undefined)).toEqual({
    deferUrl: null,
    payload: { score: 1 },
  });
});

it('refuses what a typed variable cannot hold, naming every problem', () => {
  expect(() => listenerInput({})).toThrow(
    'action : doit valoir « add » ou « remove » ; baseId : obligatoire ; rids : doit être une liste de rids',
  );
  expect(() => externalUpdateInput({ eventId: 1 })).toThrow(
    'ref : obligatoire (un Ref) ; eventId : doit être un texte',
  );
  expect(() => deferPostInput({}, 'null')).toThrow('Le corps de la requête doit être un objet');
});
