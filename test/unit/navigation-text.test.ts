import assert from 'node:assert/strict';
import { test } from 'node:test';
import { causalStatements } from '../../src/services/navigation/cause-text.js';
import { hierarchyStatements } from '../../src/services/navigation/hierarchy-text.js';
import { coneEnergy, fitEntailmentCones, poincareDistance, transitiveClosure } from '../../src/utl/poincare.js';

test('cause cues split a sentence into the memory and the clause to link', () => {
  assert.deepEqual(causalStatements('The build broke because the cache was stale.'), [{ cue: 'because', role: 'cause_follows', clause: 'the cache was stale', opensText: false }]);
  assert.deepEqual(causalStatements('Heavy rain fell all night, which leads to flooded roads downtown.'), [
    { cue: 'leads to', role: 'effect_follows', clause: 'flooded roads downtown', opensText: false },
  ]);
  assert.deepEqual(causalStatements('The outage was caused by a bad certificate rotation.')[0]?.clause, 'a bad certificate rotation');
  // A reply opening with a cue links to the previous turn, even with nothing after the cue worth matching.
  assert.deepEqual(causalStatements('So we moved the meeting.'), [{ cue: 'so', role: 'effect_follows', clause: 'we moved the meeting', opensText: true }]);
  assert.equal(causalStatements('Because of the storm!')[0]?.opensText, true);
  // A transcript's speaker label does not hide an opening cue.
  assert.equal(causalStatements('Melanie: Because my sister moved to Denver last spring.')[0]?.opensText, true);
  // Not causes: "so" as an intensifier, "since" as time, no cue at all.
  assert.deepEqual(causalStatements('I am so happy for you.'), []);
  assert.deepEqual(causalStatements('I have lived here since 2019.'), []);
  assert.deepEqual(causalStatements('We went hiking on Sunday.'), []);
});

test('hierarchy statements name the child and the parent as short noun phrases', () => {
  assert.deepEqual(hierarchyStatements('A poodle is a dog breed with curly fur.'), [{ child: 'poodle', parent: 'dog breed', relation: 'is_a' }]);
  assert.deepEqual(hierarchyStatements('The kitchen is part of the main house.'), [{ child: 'kitchen', parent: 'main house', relation: 'part_of' }]);
  assert.deepEqual(hierarchyStatements('Salsa is a kind of dance from Cuba.'), [{ child: 'salsa', parent: 'dance', relation: 'is_a' }]);
  assert.deepEqual(hierarchyStatements('Caroline: A poodle is a dog breed.'), [{ child: 'poodle', parent: 'dog breed', relation: 'is_a' }]);
  assert.deepEqual(hierarchyStatements('It is a great idea.'), []);
  assert.deepEqual(hierarchyStatements('That was a lot of fun.'), []);
});

test('the Poincaré fit entails every (descendant, ancestor) pair and no sibling', async () => {
  const edges: Array<[string, string]> = [
    ['poodle', 'dog'],
    ['beagle', 'dog'],
    ['dog', 'mammal'],
    ['cat', 'mammal'],
    ['mammal', 'animal'],
    ['sparrow', 'bird'],
    ['bird', 'animal'],
  ];
  const pts = await fitEntailmentCones(edges);
  const closure = new Set(transitiveClosure(edges).map(([c, a]) => `${c}>${a}`));
  assert.equal(closure.size, 14);
  for (const c of pts.keys()) {
    for (const a of pts.keys()) {
      if (a === c) continue;
      const inside = coneEnergy(pts.get(a)!, pts.get(c)!) === 0;
      assert.equal(inside, closure.has(`${c}>${a}`), `${c} in the cone of ${a}`);
    }
  }
  for (const p of pts.values()) assert.ok(Math.hypot(...p) < 1, 'inside the ball');
  // The root is the most general: nearer the origin than any leaf.
  const norm = (n: string) => Math.hypot(...pts.get(n)!);
  assert.ok(norm('animal') < norm('poodle') && norm('animal') < norm('sparrow'));
  assert.ok(poincareDistance(pts.get('poodle')!, pts.get('beagle')!) > 0);
});
