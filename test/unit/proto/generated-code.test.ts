// The committed ts-proto output must match what `npm run generate` produces from proto/.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';

function filesUnder(dir: string, prefix = ''): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? filesUnder(full, `${prefix}${name}/`) : [`${prefix}${name}`];
  });
}

describe('generated protobuf code', () => {
  it('is what the generator produces from proto/ (run `npm run generate` when this fails)', function () {
    this.timeout(60_000);
    const out = mkdtempSync(path.join(os.tmpdir(), 'outpost-gen-'));
    try {
      const bin = path.resolve('node_modules/.bin');
      execFileSync(path.join(bin, 'buf'), ['generate', 'proto', '--template', 'proto/buf.gen.yaml', '--output', out], {
        env: { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH}` },
        stdio: 'pipe',
      });
      const fresh = path.join(out, 'shared/src/gen');
      const committed = 'shared/src/gen';
      expect(filesUnder(committed).sort()).to.deep.equal(filesUnder(fresh).sort());
      for (const file of filesUnder(fresh)) {
        expect(readFileSync(path.join(committed, file), 'utf8'), file).to.equal(readFileSync(path.join(fresh, file), 'utf8'));
      }
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
