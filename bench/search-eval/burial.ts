/**
 * Ordinary later work that buries the evaluation corpus: what months of sessions on the same project record
 * after the memories the queries want. Test runs, builds, reads of the code, diffs, kubectl and git output,
 * short Korean progress notes. It shares the corpus's vocabulary (token, middleware, worker, pool, redis,
 * port, docker, pod, deploy, cache, connection, timeout, memory, upload...) but not its failures: none of
 * it is an answer to a query, so whatever it pushes out of the top 3 was buried, not outranked by a better
 * answer. Deterministic: the same count gives the same observations.
 */
import type { MemoryKind } from "./corpus.ts"

export interface BurialObservation {
  readonly kind: MemoryKind
  readonly toolName?: "Bash" | "Edit" | "Read"
  readonly inputSummary?: string
  readonly content: string
}

/** A small deterministic generator (mulberry32). */
const random = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const MODULES = [
  "auth",
  "orders",
  "invoices",
  "payments",
  "users",
  "cache",
  "session",
  "worker",
  "jobs",
  "uploads",
  "search",
  "reports",
  "notifications",
  "webhooks",
  "billing",
  "catalog",
  "cart",
  "checkout",
  "pool",
  "queue",
  "scheduler",
  "config",
  "logging",
  "metrics"
]
const NOUNS = [
  "token",
  "middleware",
  "worker",
  "pool",
  "session",
  "cache",
  "connection",
  "request",
  "response",
  "handler",
  "client",
  "server",
  "queue",
  "job",
  "upload",
  "invoice",
  "order",
  "user",
  "limit",
  "timeout",
  "retry",
  "port",
  "container",
  "image",
  "pod",
  "deploy",
  "build",
  "test",
  "memory",
  "disk",
  "file",
  "log",
  "lock",
  "index",
  "query",
  "migration",
  "cookie",
  "domain",
  "cron",
  "bundle",
  "redis",
  "postgres",
  "docker",
  "nginx",
  "websocket",
  "certificate",
  "permission",
  "commit",
  "branch",
  "push",
  "health",
  "proxy"
]
const VERBS = [
  "handles",
  "returns",
  "refreshes",
  "caches",
  "retries",
  "validates",
  "creates",
  "updates",
  "closes",
  "opens",
  "reads",
  "writes"
]
const KO = [
  "리뷰 반영: {m} 모듈 함수 이름 정리",
  "{m} 테스트 추가하고 커버리지 확인",
  "{m} API 응답 형식 통일",
  "배포 전에 {m} 설정 다시 확인",
  "{m} 캐시 TTL 을 10분으로 조정",
  "워커 로그에 요청 ID 추가",
  "{m} 토큰 검증 로직 리팩터링",
  "레디스 키 이름 규칙 정리: {m}:id",
  "도커 이미지 태그 규칙 정리",
  "{m} 쿼리에 페이지네이션 추가",
  "연결 풀 크기 설정을 환경 변수로 뺌",
  "파드 리소스 요청량 문서화",
  "{m} 미들웨어 순서 정리",
  "깃 브랜치 전략 정리: feature/{m}",
  "{m} 업로드 경로 정리",
  "테스트 데이터 시드 스크립트 수정"
]

export const burialObservations = (count: number, seed = 20): Array<BurialObservation> => {
  const next = random(seed)
  const pick = <A>(list: ReadonlyArray<A>): A => list[Math.floor(next() * list.length)]!
  const n = (max: number) => 1 + Math.floor(next() * max)
  const cap = (s: string) => s[0]!.toUpperCase() + s.slice(1)
  const templates: ReadonlyArray<() => BurialObservation> = [
    () => {
      const m = pick(MODULES)
      const a = pick(NOUNS)
      const b = pick(NOUNS)
      return {
        kind: "success",
        toolName: "Bash",
        inputSummary: `npm test -- src/${m}`,
        content: ` ✓ src/${m}/${a}.test.ts (${n(12)} tests) ${n(300)}ms\n   ✓ ${pick(VERBS)} the ${a} ${b}\n   ✓ ${
          pick(VERBS)
        } the ${b} when the ${a} is missing\n\n Test Files  ${n(3)} passed\n      Tests  ${n(40)} passed`
      }
    },
    () => {
      const m = pick(MODULES)
      const a = pick(NOUNS)
      const b = pick(NOUNS)
      return {
        kind: "error",
        toolName: "Bash",
        inputSummary: `npx vitest run src/${m}`,
        content: ` FAIL  src/${m}/${a}.test.ts > ${a} ${b} > ${pick(VERBS)} the ${b}\nAssertionError: expected ${
          n(500)
        } to be ${n(500)} // Object.is equality\n ❯ src/${m}/${a}.test.ts:${n(90)}:${
          n(40)
        }\n\n Test Files  1 failed | ${n(20)} passed`
      }
    },
    () => {
      const m = pick(MODULES)
      const a = pick(NOUNS)
      return {
        kind: "tool_use",
        toolName: "Read",
        inputSummary: `src/${m}/${a}.ts`,
        content: `import { ${a}Config } from "../config.ts"\n\nexport function ${pick(VERBS).slice(0, -1)}${cap(a)}(${
          pick(NOUNS)
        }: ${cap(pick(NOUNS))}) {\n  const ${a} = ${a}Config.${
          pick(NOUNS)
        }\n  if (!${a}) return undefined\n  return ${a}.${pick(VERBS).slice(0, -1)}(${pick(NOUNS)})\n}`
      }
    },
    () => {
      const m = pick(MODULES)
      const a = pick(NOUNS)
      const b = pick(NOUNS)
      return {
        kind: "tool_use",
        toolName: "Edit",
        inputSummary: `src/${m}/${a}.ts`,
        content: `-  const ${b} = await ${a}.get(id)\n+  const ${b} = await ${a}.get(id, { timeout: ${
          n(30) * 1000
        } })\n+  if (${b} === undefined) throw new Not${cap(b)}Error(id)`
      }
    },
    () => ({
      kind: "success",
      toolName: "Bash",
      inputSummary: "npm run build",
      content: `> app@2.${n(9)}.${n(9)} build\n> tsc -p tsconfig.json && vite build\n\nvite v6.0.${
        n(9)
      } building for production...\n✓ ${n(900)} modules transformed.\ndist/assets/index-${n(99999)}.js  ${n(400)}.${
        n(99)
      } kB │ gzip: ${n(120)}.${n(99)} kB\n✓ built in ${n(20)}.${n(9)}s`
    }),
    () => ({
      kind: "success",
      toolName: "Bash",
      inputSummary: "git push origin HEAD",
      content: `To github.com:acme/app.git\n   ${n(9999999).toString(16)}..${n(9999999).toString(16)}  feature/${
        pick(MODULES)
      }-${pick(NOUNS)} -> feature/${pick(MODULES)}-${pick(NOUNS)}`
    }),
    () => ({
      kind: "tool_use",
      toolName: "Bash",
      inputSummary: `git commit -m "${pick(["feat", "fix", "refactor", "test", "chore"])}(${pick(MODULES)}): ${
        pick(VERBS).slice(0, -1)
      } the ${pick(NOUNS)} ${pick(NOUNS)}"`,
      content: `[feature/${pick(MODULES)} ${n(9999999).toString(16)}] ${pick(VERBS).slice(0, -1)} the ${pick(NOUNS)} ${
        pick(NOUNS)
      }\n ${n(6)} files changed, ${n(120)} insertions(+), ${n(40)} deletions(-)`
    }),
    () => ({
      kind: "tool_use",
      toolName: "Bash",
      inputSummary: "kubectl get pods -n production",
      content: `NAME                        READY   STATUS    RESTARTS   AGE\napi-${n(99999)}-${
        n(999)
      }   1/1     Running   0          ${n(20)}h\nworker-${n(99999)}-${n(999)}  1/1     Running   0          ${
        n(20)
      }h\nscheduler-${n(99999)}-${n(99)}  1/1     Running   ${n(2) - 1}          ${n(9)}d`
    }),
    () => ({
      kind: "tool_use",
      toolName: "Bash",
      inputSummary: "docker compose ps",
      content: `NAME          IMAGE            STATUS         PORTS\napp-api-1     app/api:2.${n(9)}.${n(9)}   Up ${
        n(50)
      } minutes   0.0.0.0:4000->4000/tcp\napp-db-1      postgres:16      Up ${
        n(50)
      } minutes   0.0.0.0:5432->5432/tcp\napp-redis-1   redis:7          Up ${n(50)} minutes   0.0.0.0:6379->6379/tcp`
    }),
    () => {
      const m = pick(MODULES)
      return {
        kind: "tool_use",
        toolName: "Bash",
        inputSummary: `grep -rn "${pick(NOUNS)}" src/${m}`,
        content: `src/${m}/index.ts:${n(80)}:  const ${pick(NOUNS)} = create${cap(pick(NOUNS))}(${
          pick(NOUNS)
        })\nsrc/${m}/${pick(NOUNS)}.ts:${n(80)}:export const ${pick(NOUNS)}${cap(pick(NOUNS))} = ${
          n(60)
        } * 1000\nsrc/${m}/${pick(NOUNS)}.test.ts:${n(80)}:  it("${pick(VERBS)} the ${pick(NOUNS)}", async () => {`
      }
    },
    () => ({
      kind: "success",
      toolName: "Bash",
      inputSummary: "npm run lint",
      content: `> app@2.${n(9)}.${n(9)} lint\n> eslint . --max-warnings 0\n\n✔ No problems found in ${n(400)} files`
    }),
    () => ({
      kind: "tool_use",
      toolName: "Bash",
      inputSummary: `curl -s http://localhost:4000/api/${pick(MODULES)}?limit=${n(50)}`,
      content: `{"items":[{"id":"${pick(MODULES)}_${n(99999)}","status":"${pick(["open", "paid", "sent", "draft"])}","${
        pick(NOUNS)
      }":${n(999)}}],"next":"${n(99999)}"}`
    }),
    () => ({
      kind: "tool_use",
      toolName: "Bash",
      inputSummary: `kubectl logs deploy/${pick(["api", "worker", "scheduler"])} -n production --tail=3`,
      content: `{"level":"info","msg":"${pick(NOUNS)} ${pick(VERBS)} ${pick(NOUNS)}","ms":${n(400)},"requestId":"${
        n(999999)
      }"}\n{"level":"info","msg":"${pick(MODULES)} ${pick(NOUNS)} done","ms":${n(400)}}\n{"level":"debug","msg":"${
        pick(NOUNS)
      } pool size ${n(20)}"}`
    }),
    () => ({ kind: "note", content: pick(KO).replace("{m}", pick(MODULES)) }),
    () => {
      const m = pick(MODULES)
      return {
        kind: "success",
        toolName: "Bash",
        inputSummary: `npx tsc --noEmit -p src/${m}`,
        content: `Type check of src/${m}: 0 errors in ${n(120)} files (${n(9)}.${n(9)}s)`
      }
    }
  ]
  return Array.from({ length: count }, () => pick(templates)())
}
