import { expect } from 'chai';
import { AppError } from '../../../control-plane/src/errors.js';
import { assertDependenciesAllowed, findCycle, type DependencyGraph } from '../../../control-plane/src/features/services/dependency-graph.js';

const graph = (edges: Record<string, string[]>, names: Record<string, string> = {}): DependencyGraph => ({
  edges: new Map(Object.entries(edges)),
  names: new Map(Object.entries(names)),
});

function refusal(work: () => void): AppError {
  try {
    work();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('dependency graph', () => {
  describe('findCycle', () => {
    it('finds none along a chain or a diamond', () => {
      expect(findCycle(new Map([['b', ['c']], ['c', []]]), 'a', ['b'])).to.equal(null);
      expect(findCycle(new Map([['b', ['d']], ['c', ['d']]]), 'a', ['b', 'c'])).to.equal(null);
    });

    it('answers the path from the service back to itself', () => {
      expect(findCycle(new Map([['b', ['a']]]), 'a', ['b'])).to.deep.equal(['a', 'b', 'a']);
      expect(findCycle(new Map([['b', ['x', 'c']], ['c', ['a']], ['x', []]]), 'a', ['b'])).to.deep.equal(['a', 'b', 'c', 'a']);
    });

    it("judges the service's new list, not the edges it had", () => {
      const edges = new Map([['a', ['b']], ['b', ['c']]]);
      expect(findCycle(edges, 'c', ['a'])).to.deep.equal(['c', 'a', 'b', 'c']);
      expect(findCycle(new Map([['a', ['b']], ['b', ['a']]]), 'a', []), 'an old cycle through a is dropped with its edges').to.equal(null);
    });
  });

  describe('assertDependenciesAllowed', () => {
    const names = { a: 'web', b: 'api', c: 'db' };

    it('accepts services of the organization that close no cycle', () => {
      expect(() => assertDependenciesAllowed(graph({ b: ['c'] }, names), 'a', 'web', ['b', 'c'])).not.to.throw();
    });

    it('refuses the service itself, an unknown id and a cycle, on depends_on', () => {
      expect(refusal(() => assertDependenciesAllowed(graph({}, names), 'a', 'web', ['a'])).message).to.equal('depends_on must not name the service itself');
      const unknown = refusal(() => assertDependenciesAllowed(graph({}, names), 'a', 'web', ['b', 'z']));
      expect(unknown.message).to.equal('depends_on names service z, which is not a service of this organization');
      expect(unknown.extra.details).to.deep.equal([{ path: 'depends_on', message: 'names service z, which is not a service of this organization' }]);
      const cycle = refusal(() => assertDependenciesAllowed(graph({ b: ['c'], c: ['a'] }, names), 'a', 'web-renamed', ['b']));
      expect(cycle.code).to.equal('VALIDATION_FAILED');
      expect(cycle.message).to.equal('depends_on would make a cycle: web-renamed (a) → api (b) → db (c) → web-renamed (a)');
    });
  });
});
