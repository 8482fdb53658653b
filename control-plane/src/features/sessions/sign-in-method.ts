/** How a session was started; kept on the session and known to every request of it. */
export const SIGN_IN_METHODS = ['password', 'sso', 'passkey', 'invitation', 'password_reset'] as const;
export type SignInMethod = (typeof SIGN_IN_METHODS)[number];
