// `outpost login`: exchanges an e-mail and password for a token and stores it (mode 0600).
import { createInterface } from 'node:readline';
import { ApiClient } from '../api-client.js';
import { UsageError } from '../cli-error.js';
import { serverUrl, storeLogin, type CliEnv } from '../settings.js';

export interface LoginFlags {
  email?: string;
  password?: string;
}

export async function login(flagUrl: string | undefined, flags: LoginFlags, env: CliEnv, print: (line: string) => void): Promise<number> {
  const url = serverUrl(flagUrl, env);
  const email = flags.email ?? (await prompt('E-mail: ', false));
  const password = flags.password ?? (await prompt('Password: ', true));
  if (!email || !password) throw new UsageError('login needs an e-mail and a password');
  const reply = await new ApiClient(url).post<{ token: string }>('/auth/login', { email, password });
  const file = storeLogin(env, { url, token: reply.token, email });
  print(`logged in to ${url} as ${email}; token stored in ${file}`);
  return 0;
}

/** Reads one line from the terminal; a password is not echoed. */
function prompt(question: string, secret: boolean): Promise<string> {
  if (!process.stdin.isTTY) throw new UsageError('no terminal to prompt on: pass --email and --password');
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  if (secret) {
    const write = (rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput.bind(rl);
    (rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput = (s) => write(s.startsWith(question) ? question : '');
  }
  return new Promise((resolve) =>
    rl.question(question, (answer) => {
      rl.close();
      if (secret) process.stderr.write('\n');
      resolve(answer.trim());
    }),
  );
}
