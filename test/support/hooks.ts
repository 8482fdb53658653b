// Mocha root hooks: shared resources live for the whole run and are stopped at its end.
import { stopTestDatabase } from './test-database.js';

export const mochaHooks = {
  async afterAll() {
    await stopTestDatabase();
  },
};
