/** Who may do what with a group, and who sees a person's private fields: pure functions. */
import { describe, expect, it } from 'vitest';
import {
  canCreateGroup,
  canFollowGroup,
  canJoinGroup,
  canManageGroup,
  type GroupAccessState,
} from '../../src/modules/groups/groups.policy.ts';
import { canSeePrivateFields } from '../../src/modules/persons/persons.policy.ts';
import { anonymous, personViewer, tokenCaller } from '../support/viewers.ts';

const state = (changes: Partial<GroupAccessState> = {}): GroupAccessState => ({
  ouvert: false,
  public: false,
  isManager: false,
  isMember: false,
  ...changes,
});

describe('groups', () => {
  it('creating needs a person holding `createGroupe` (a token has no person to make manager)', () => {
    expect(canCreateGroup(personViewer(1, ['createGroupe']))).toBe(true);
    expect(canCreateGroup(personViewer(1, ['allRights']))).toBe(true);
    expect(canCreateGroup(personViewer(1, ['create']))).toBe(false);
    expect(canCreateGroup(tokenCaller)).toBe(false);
    expect(canCreateGroup(anonymous)).toBe(false);
  });

  it('managing: its managers and all rights', () => {
    expect(canManageGroup(personViewer(1), { isManager: true })).toBe(true);
    expect(canManageGroup(tokenCaller, { isManager: false })).toBe(true);
    expect(canManageGroup(personViewer(1, ['allRights']), { isManager: false })).toBe(true);
    expect(canManageGroup(personViewer(1, ['createGroupe']), { isManager: false })).toBe(false);
  });

  it.each([
    [state({ ouvert: true }), true],
    [state({ isMember: true }), true],
    [state({ isManager: true }), true],
    [state({ public: true }), false],
    [state(), false],
  ])('joining %o: %s', (group, expected) => {
    expect(canJoinGroup(group)).toBe(expected);
  });

  it.each([
    [state({ public: true }), true],
    [state({ isManager: true }), true],
    [state({ isMember: true, ouvert: true }), false],
    [state(), false],
  ])('following %o: %s', (group, expected) => {
    expect(canFollowGroup(group)).toBe(expected);
  });
});

describe('persons', () => {
  it('private fields: the person themself and all rights', () => {
    expect(canSeePrivateFields(personViewer(1), 1)).toBe(true);
    expect(canSeePrivateFields(personViewer(1), 2)).toBe(false);
    expect(canSeePrivateFields(personViewer(1, ['allRights']), 2)).toBe(true);
    expect(canSeePrivateFields(tokenCaller, 2)).toBe(true);
    expect(canSeePrivateFields(anonymous, 2)).toBe(false);
  });
});
