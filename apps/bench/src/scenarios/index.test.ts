import { describe, expect, it } from 'vitest';
import { resolveScenario } from '../runner.js';
import { scenarios } from './index.js';

describe('scenario registry', () => {
  it('holds uniquely named kebab-case scenarios', () => {
    const names = scenarios.map((s) => s.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
  });

  it.each(scenarios.map((s) => [s.name, s] as const))(
    '%s declares valid variants and ratios at both sizes',
    (_name, scenario) => {
      expect(scenario.description.length).toBeGreaterThan(0);
      for (const size of ['full', 'ci'] as const) {
        const { variants } = resolveScenario(scenario, scenario.params[size]);
        expect(variants.length).toBeGreaterThan(0);
      }
    },
  );
});
