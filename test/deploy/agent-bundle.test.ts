// The agent's bundle (deploy/agent-bundle.mjs) as the package and the benchmarks build it.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { bundleAgent } from '../../deploy/agent-bundle.mjs';

describe('agent bundle', function () {
  this.timeout(60_000);
  let dir: string;
  // Inside the repository, so that packages resolve from its node_modules.
  before(() => (dir = mkdtempSync(path.resolve('.bench-agent-test-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps zod’s English locale only, and zod still speaks it', async () => {
    writeFileSync(
      path.join(dir, 'entry.ts'),
      "import { z } from 'zod';\nconst r = z.object({ n: z.number() }).safeParse({ n: 'x' });\nconsole.log(JSON.stringify({ locales: Object.keys(z.locales), message: r.error?.issues[0]?.message }));\n",
    );
    await bundleAgent({ entryPoints: { entry: path.join(dir, 'entry.ts') }, outdir: path.join(dir, 'out'), nodeMajor: process.versions.node.split('.')[0]! });
    const printed = JSON.parse(execFileSync(process.execPath, [path.join(dir, 'out', 'entry.js')], { encoding: 'utf8' }));
    expect(printed).to.deep.equal({ locales: ['en'], message: 'Invalid input: expected number, received string' });
  });

  it("ends Node's package-scope search for its chunks in their own folder, and they still load as ES modules", async () => {
    writeFileSync(path.join(dir, 'lazy.ts'), 'export const answer: number = 42;\n');
    writeFileSync(path.join(dir, 'main.ts'), "const { answer } = await import('./lazy.js');\nconsole.log(answer);\n");
    const out = path.join(dir, 'split');
    await bundleAgent({ entryPoints: { main: path.join(dir, 'main.ts') }, outdir: out, nodeMajor: process.versions.node.split('.')[0]! });
    expect(JSON.parse(readFileSync(path.join(out, 'chunks', 'package.json'), 'utf8'))).to.deep.equal({ type: 'module' });
    expect(execFileSync(process.execPath, [path.join(out, 'main.js')], { encoding: 'utf8' })).to.equal('42\n');
  });

  it('keeps the names of functions made at run time without setting them on each closure', async () => {
    writeFileSync(
      path.join(dir, 'names.ts'),
      'function make(n: number) {\n  function publish() {\n    return n;\n  }\n  const fail = () => -n;\n  return [publish, fail, fail];\n}\nconsole.log(make(1).map((f) => f.name).join(" "));\n',
    );
    const out = path.join(dir, 'names');
    await bundleAgent({ entryPoints: { names: path.join(dir, 'names.ts') }, outdir: out, nodeMajor: process.versions.node.split('.')[0]! });
    expect(execFileSync(process.execPath, [path.join(out, 'names.js')], { encoding: 'utf8' })).to.equal('publish fail fail\n');
    // esbuild's keepNames helper: Object.defineProperty(fn, "name", ...) on every closure made.
    expect(readFileSync(path.join(out, 'names.js'), 'utf8')).not.to.match(/"name",\s*\{\s*value:/);
  });
});
