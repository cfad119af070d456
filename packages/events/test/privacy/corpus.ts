/** Realistic coding-session text with no secrets in it: the filter must return every piece unchanged. */

export const CLEAN_CORPUS: ReadonlyArray<string> = [
  `TypeError: Cannot read properties of undefined (reading 'token')
    at parseConfig (/home/dev/ralph-mem/packages/hooks/src/config.ts:42:17)
    at Object.<anonymous> (file:///home/dev/ralph-mem/apps/cli/src/main.ts:10:3)
    at ModuleJob.run (node:internal/modules/esm/module_job:271:25)
    at async onImport.tracePromise.__proto__ (node:internal/modules/esm/loader:547:26)`,
  `npm warn deprecated inflight@1.0.6: This module is not supported, and leaks memory.
npm warn deprecated glob@7.2.3: Glob versions prior to v9 are no longer supported

added 312 packages, and audited 313 packages in 4s

58 packages are looking for funding
  run \`npm fund\` for details

found 0 vulnerabilities`,
  `commit 8d5a97a3f1c2b4e5d6a7b8c9d0e1f2a3b4c5d6e7
Author: Jane Doe <jane@example.com>
Date:   Tue Mar 4 10:12:33 2025 +0900

    Projections, replay, verify, audit and timeline

commit 94a2a97c0ffee0ddba11dead0beef00c0ffee123
Merge: 3c9aca7 c992bad
Author: Min-jun Kim <minjun@example.kr>`,
  `a1b2c3d fix: handle expired token refresh
e4f5a6b feat(auth): rotate the session secret on logout
0f9e8d7 chore: bump vitest to 5.1.1`,
  `On branch main
Changes not staged for commit:
	modified:   packages/hooks/src/privacy/filter.ts
	modified:   apps/cli/src/commands/password-reset.ts
Untracked files:
	packages/hooks/test/privacy/`,
  `diff --git a/src/auth/token.ts b/src/auth/token.ts
index 3f1c2b4..5d6a7b8 100644
--- a/src/auth/token.ts
+++ b/src/auth/token.ts
@@ -10,7 +10,7 @@ export function countTokens(text: string): number {
-  const tokens = text.split(/\\s+/)
+  const tokens = tokenize(text)
   return tokens.length`,
  `session 3f1c2b4e-5d6a-4b8c-9d0e-1f2a3b4c5d6e started; parent 0b6f3a1e-7c2d-4e9f-8a5b-6c7d8e9f0a1b`,
  `비밀번호 재설정 기능을 추가했습니다. 토큰 수를 줄이기 위해 세션 요약을 사용합니다.
테스트는 모두 통과했습니다 (12개 파일, 148개 테스트).`,
  `The password field is validated on submit, and we report token counts per prompt.
Use --password-file instead of putting secrets on the command line; see docs/security.md.
Bearer authentication is described in RFC 6750. Basic usage: ralph-mem search "flaky test".`,
  `interface Credentials { username: string; password: string }
const tokenCount = countTokens(prompt)
if (token === undefined) throw new Error("missing token")
const isSecret = false`,
  ` ✓ packages/events/test/log.test.ts (12 tests) 340ms
 ✓ packages/events/test/properties.test.ts (4 tests) 1204ms
 Test Files  2 passed (2)
      Tests  16 passed (16)
   Duration  2.31s (transform 112ms, setup 0ms, collect 401ms, tests 1544ms)`,
  `src/auth/token.ts(12,5): error TS2322: Type 'string' is not assignable to type 'number'.
src/auth/password.ts(3,10): error TS6133: 'hash' is declared but its value is never read.`,
  `{"usage": {"input_tokens": 1234, "output_tokens": 56, "cache_read_input_tokens": 0}, "model": "claude-sonnet-4-5"}`,
  `"node_modules/effect": {
  "version": "4.1.0",
  "resolved": "https://registry.npmjs.org/effect/-/effect-4.1.0.tgz",
  "integrity": "sha512-Qm9yZWVtIGlwc3VtIGRvbG9yIHNpdCBhbWV0LCBjb25zZWN0ZXR1cg+AbCdEfGhIjKlMnOpQrStUvWxYz01234=="
}`,
  `NODE_ENV=production
PORT=3000
LOG_LEVEL=debug
DATABASE_HOST=localhost`,
  `Opened https://github.com/ralph-mem/ralph-mem/pull/42 and http://localhost:3000/api/auth/callback?code=ok&state=xyz
Clone with git@github.com:ralph-mem/ralph-mem.git or ssh://git@github.com/ralph-mem/ralph-mem.git`,
  `SELECT id, email, password_hash FROM users WHERE email = $1 AND deleted_at IS NULL;`,
  `Traceback (most recent call last):
  File "/usr/lib/python3.12/site-packages/requests/auth.py", line 96, in __call__
    r.headers["Authorization"] = _basic_auth_str(self.username, self.password)
KeyError: 'password'`,
  `jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: npm ci && npm test`,
  `Step 5/9 : RUN npm ci --omit=dev
 ---> Running in 3f1c2b4e5d6a
Successfully built 0b6f3a1e7c2d
Successfully tagged ralph-mem:latest`,
  `const risk-assessment-2024-quarterly-report = 1 // task-sk-unrelated-name
Loaded model sk-learn style pipeline; ask-me-anything-about-this-thread`,
  `<img src="https://www.gravatar.com/avatar/205e460b479e2e5b48aec07710c08d50?s=80&sig=v2&d=identicon">
var provider = new SharedAccessSignatureTokenProvider(keyName, key); // SharedAccessSignature auth, no token yet`,
  `[private] and [secret:github-token] are markers the filter itself writes.`
]
