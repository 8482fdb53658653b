// `npm start` and `npm run agent` compile only when the sources changed since the last build.
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sourceHash, staleness, writeStamp } from '../../scripts/source-stamp.mjs';

describe('build on start', function () {
  this.timeout(60_000);

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
    // A project of four one-line sources laid out like this one, so that tsc takes a second.
    let project: string;
    const repo = fileURLToPath(new URL('../..', import.meta.url));
    const sources = { 'shared/src/word.ts': "export const word = 'a';\n", 'control-plane/src/main.ts': "import { word } from '../../shared/src/word.js';\nconsole.log(word);\n", 'agent/src/cli.ts': 'export {};\n', 'cli/src/main.ts': 'export {};\n' };
    before(() => {
      project = mkdtempSync(join(tmpdir(), 'outpost-build-'));
      for (const [file, text] of Object.entries(sources)) {
        mkdirSync(dirname(join(project, file)), { recursive: true });
        writeFileSync(join(project, file), text);
      }
      mkdirSync(join(project, 'scripts'));
      for (const file of ['scripts/build.mjs', 'scripts/source-stamp.mjs', 'tsconfig.json']) copyFileSync(join(repo, file), join(project, file));
      writeFileSync(join(project, 'package.json'), '{"type": "module"}\n');
      writeFileSync(join(project, 'package-lock.json'), '{}\n');
      symlinkSync(join(repo, 'node_modules'), join(project, 'node_modules'));
    });
    after(() => rmSync(project, { recursive: true, force: true }));
    const run = () => execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: project, encoding: 'utf8' });
    const built = (file: string) => readFileSync(join(project, 'dist', file), 'utf8');

    it('compiles when the build is missing or its sources changed, and does nothing when it matches them', () => {
      expect(run()).to.equal('compiling TypeScript into dist/ (dist/control-plane/src/main.js is missing)\n');
      expect(built('control-plane/src/main.js')).to.include('console.log(word)');
      expect(run(), 'a current build is not compiled again').to.equal('');

      writeFileSync(join(project, 'shared/src/word.ts'), "export const word = 'b';\n");
      expect(run()).to.equal('compiling TypeScript into dist/ (its sources changed)\n');
      expect(built('shared/src/word.js')).to.include("'b'");
      expect(run()).to.equal('');

      rmSync(join(project, 'dist/agent/src/cli.js'));
      expect(run(), 'incremental build info does not hide a deleted output').to.equal('compiling TypeScript into dist/ (dist/agent/src/cli.js is missing)\n');
      expect(built('agent/src/cli.js')).to.include('export {}');
    });
  });
});
