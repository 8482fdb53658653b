// `npm start` builds the dashboard only when the build is missing or its sources changed.
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildDashboard } from '../support/browser.js';

const script = fileURLToPath(new URL('../../scripts/build-web.mjs', import.meta.url));
const stamp = fileURLToPath(new URL('../../dist/web/.source-hash', import.meta.url));
const run = () => execFileSync(process.execPath, [script], { encoding: 'utf8' });

describe('dashboard build on start', function () {
  this.timeout(120_000);

  it('does nothing when the build matches the sources, and rebuilds when they differ', () => {
    buildDashboard();
    const hash = readFileSync(stamp, 'utf8');
    expect(run()).to.equal('');

    writeFileSync(stamp, 'built from other sources\n');
    expect(run()).to.include('building the dashboard into dist/web (its sources changed)');
    expect(readFileSync(stamp, 'utf8')).to.equal(hash);
    expect(readFileSync(fileURLToPath(new URL('../../dist/web/index.html', import.meta.url)), 'utf8')).to.include('<div id="root">');
  });
});
