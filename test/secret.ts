/** The secret key of every test app and CLI run; scripts/test.ts seals the embedded template's signing key with it. */
export const TEST_SECRET_KEY = 'test-secret-key-test-secret-key-0123456789'
