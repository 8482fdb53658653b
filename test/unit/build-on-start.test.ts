// `npm start` and `npm run agent` compile only when the sources changed since the last build.
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sourceHash, staleness, writeStamp } from '../../scripts/source-stamp.mjs';

describe('build on start', function () {
  this.timeout(180_000);

  describe('source stamp', () => {
    let dir: string;
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'outpost-stamp-'));
      mkdirSync(join(dir, 'src', 'nested'), { recursive: true });
      writeFileSync(join(dir, 'src', 'a.ts'), 'export const a = 1;\n');
      writeFileSync(join(dir, 'src', 'nested', 'b.ts'), 'export const b = 2;\n');
      writeFileSync(join(dir, 'out.js'), '');
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    const check = async () => {
      const hash = await sourceHash(dir, [join(dir, 'src')]);
      return { hash, reason: await staleness({ hash, stampFile: join(dir, 'stamp'), outputs: [join(dir, 'out.js')] }) };
    };

    it('is stale until built, then current until a source changes its content, a file is added or an output goes', async () => {
      expect((await check()).reason).to.equal('it was never built here');
      await writeStamp(join(dir, 'stamp'), (await check()).hash);
      expect((await check()).reason).to.equal(null);

      utimesSync(join(dir, 'src', 'a.ts'), new Date(), new Date(Date.now() + 60_000));
      expect((await check()).reason, 'a newer time alone is no change').to.equal(null);

      writeFileSync(join(dir, 'src', 'nested', 'b.ts'), 'export const b = 3;\n');
      expect((await check()).reason).to.equal('its sources changed');
      await writeStamp(join(dir, 'stamp'), (await check()).hash);

      writeFileSync(join(dir, 'src', 'c.ts'), '');
      expect((await check()).reason).to.equal('its sources changed');
      await writeStamp(join(dir, 'stamp'), (await check()).hash);

      rmSync(join(dir, 'out.js'));
      expect((await check()).reason).to.match(/out\.js is missing$/);
    });
  });

  describe('scripts/build.mjs', () => {
    const script = fileURLToPath(new URL('../../scripts/build.mjs', import.meta.url));
    const stamp = fileURLToPath(new URL('../../dist/.source-hash', import.meta.url));
    const run = () => execFileSync(process.execPath, [script], { encoding: 'utf8' });

    it('compiles when the build does not match the sources, and does nothing when it does', () => {
      run();
      const hash = readFileSync(stamp, 'utf8');
      expect(run(), 'a current build is not compiled again').to.equal('');

      writeFileSync(stamp, 'built from other sources\n');
      expect(run()).to.equal('compiling TypeScript into dist/ (its sources changed)\n');
      expect(readFileSync(stamp, 'utf8')).to.equal(hash);
      expect(run()).to.equal('');
    });
  });
});
