/**
 * Issue 15, item 2: key-aware masking on every write path, through the real CLI. Each command plants a
 * secret in one of the shapes the filter masks; afterwards no byte of any of them is in the database file
 * or its WAL, and the parts that are not secret are still there.
 */
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { tempFolder } from "../packages/events/test/helpers.ts"
import { runCli } from "./support/cli.ts"
import { payload, runHookProcess } from "./support/hook.ts"

const project = () => {
  const root = tempFolder()
  mkdirSync(join(root, ".git"))
  return root
}

const bytesOnDisk = (root: string): string =>
  ["memory.db", "memory.db-wal"]
    .map((file) => join(root, ".ralph-mem", file))
    .filter((file) => existsSync(file))
    .map((file) => readFileSync(file).toString("latin1"))
    .join("")

const ok = (root: string, args: ReadonlyArray<string>) => {
  const run = runCli(args, { cwd: root })
  expect(run.stderr, args.join(" ")).toBe("")
  expect(run.code, args.join(" ")).toBe(0)
  return run
}

describe("every CLI write path masks secrets before they reach the disk", () => {
  it("beliefs, notes, decisions, task findings and handoffs, loop goals", () => {
    const root = project()
    const planted = {
      beliefByKey: "hunter2BeliefPw",
      beliefProse: "Xq7vR2mK9pL4wT8zN3bH6cJ1",
      note: "InjectPw42x",
      rationale: "WhyPw-77zz",
      alternative: "AltKeyValue123",
      finding: "FindTok9Xk2Lm7Qw3Er8",
      handoff: "HandoffSecret99",
      taskTitle: "TitleKey8Zq2Wm4",
      goal: "GoalPw-5Rt8Yu1",
      goalPrivate: "my private goal detail"
    }
    ok(root, ["belief", "set", "db-password", planted.beliefByKey])
    ok(root, ["belief", "set", "deploy-notes", `the db password: ${planted.beliefProse} on db1`])
    ok(root, ["inject", `mysql -uroot -p${planted.note} shop`])
    ok(root, [
      "decide",
      "use a vault",
      "--why",
      `curl -u admin:${planted.rationale} kept leaking`,
      "--alternative",
      `env file: APP_KEY=${planted.alternative} leaked`
    ])
    ok(root, ["task", "start", `rotate ENCRYPTION_KEY=${planted.taskTitle} everywhere`, "--id", "rotate"])
    ok(root, ["task", "finding", `the API wants PRIVATE-TOKEN: ${planted.finding}`])
    ok(root, ["task", "handoff", `ran aws configure set aws_secret_access_key ${planted.handoff}`])
    ok(root, [
      "ralph",
      "start",
      `fix login; the staging password is ${planted.goal} <private>${planted.goalPrivate}</private>`,
      "--session",
      "s1",
      "--criteria",
      "marker=DONE"
    ])

    const bytes = bytesOnDisk(root)
    for (const [where, secret] of Object.entries(planted)) expect(bytes.includes(secret), where).toBe(false)
    // What is not secret stays readable.
    for (
      const kept of [
        "db-password",
        "deploy-notes",
        "use a vault",
        "rotate",
        "aws configure set aws_secret_access_key",
        "fix login"
      ]
    ) {
      expect(bytes.includes(kept), kept).toBe(true)
    }
    const beliefs = JSON.parse(ok(root, ["belief", "list", "--json"]).stdout) as unknown
    expect(JSON.stringify(beliefs)).toContain("[secret:credential]")
  })

  it("refuses a criteria command holding a password: it would be stored, and run, masked", () => {
    const root = project()
    const run = runCli([
      "ralph",
      "start",
      "fix it",
      "--session",
      "s1",
      "--criteria",
      "custom=mysql --password CritPw-31x -e 'select 1'"
    ], { cwd: root })
    expect(run.code).not.toBe(0)
    expect(run.stderr + run.stdout).toContain("holds a password or token")
    expect(bytesOnDisk(root).includes("CritPw-31x")).toBe(false)
  })
})

/** Every byte of every file under `.ralph-mem`: the database, its WAL, the spill file, the log, backups. */
const folderBytes = (root: string): string => {
  const walk = (dir: string): Array<string> =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name)
      const stat = lstatSync(path)
      return stat.isDirectory() ? walk(path) : stat.isFile() ? [path] : []
    })
  return walk(join(root, ".ralph-mem")).map((file) => readFileSync(file).toString("latin1")).join("")
}

const hook = (root: string, event: string, fields: Record<string, unknown>) => {
  const run = runHookProcess(event, payload(event, "s1", root, fields), { cwd: root })
  expect(run.stderr, event).toBe("")
  expect(run.code, event).toBe(0)
}

const bash = (root: string, id: string, command: string, stdout: string) =>
  hook(root, "PostToolUse", {
    tool_name: "Bash",
    tool_use_id: id,
    tool_input: { command },
    tool_response: { stdout, stderr: "", interrupted: false }
  })

describe("every hook write path masks secrets before they reach the disk", () => {
  it("removes <private> blocks a tool printed escaped, as Go's JSON and HTML write them", () => {
    const root = project()
    const planted = { json: "GhBodyPriv-93x", html: "HtmlPriv-55q" }
    hook(root, "SessionStart", { source: "startup" })
    bash(
      root,
      "t1",
      "gh issue view 12 --json body",
      String.raw`{"body":"Repro: \u003cprivate\u003estaging admin ${planted.json}\u003c/private\u003e then run"}`
    )
    hook(root, "PostToolUse", {
      tool_name: "WebFetch",
      tool_use_id: "t2",
      tool_input: { url: "https://wiki.example.com/deploy" },
      tool_response: `<p>Notes &lt;private&gt;${planted.html}&lt;/private&gt; end</p>`
    })
    const bytes = folderBytes(root)
    for (const [where, secret] of Object.entries(planted)) expect(bytes.includes(secret), where).toBe(false)
    expect(bytes).toContain("gh issue view 12")
    expect(bytes).toContain("then run")
  })

  it("masks a password in JSON escaped once and twice: a ConfigMap's data, its last-applied annotation, a log", () => {
    const root = project()
    const password = "CmHookPw-hunter2"
    const config = JSON.stringify({ db: { user: "app", password } })
    hook(root, "SessionStart", { source: "startup" })
    bash(
      root,
      "t1",
      "kubectl get configmap app -o json",
      JSON.stringify(
        {
          apiVersion: "v1",
          data: { "config.json": config },
          kind: "ConfigMap",
          metadata: {
            annotations: {
              "kubectl.kubernetes.io/last-applied-configuration": JSON.stringify({ data: { "config.json": config } })
            },
            name: "app"
          }
        },
        null,
        2
      )
    )
    // A log line that stringifies the JSON twice.
    bash(root, "t2", "tail -n 1 app.log", String.raw`{\"config\":\"{\\\"password\\\":\\\"${password}\\\"}\"}`)
    const bytes = folderBytes(root)
    expect(bytes.includes(password)).toBe(false)
    expect(bytes).toContain("kubectl get configmap app -o json")
    expect(bytes).toContain("last-applied-configuration")
  })

  it("masks a password in JSON escaped four and five times, as logs quoting JSON as a string hold it", () => {
    const root = project()
    /** JSON encoded as a string `times` more times: a quote then has 2^times - 1 backslashes before it. */
    const encoded = (value: unknown, times: number): string => {
      let text = JSON.stringify(value)
      for (let i = 0; i < times; i++) text = JSON.stringify(text)
      return text
    }
    const planted = { four: "DeepHookPw-4x", five: "DeeperHookPw-5x", token: "DeeperHookTok-5x" }
    hook(root, "SessionStart", { source: "startup" })
    // 15 backslashes before each quote, then 31.
    bash(root, "t1", "tail -n 1 gateway.log", encoded({ db: { user: "app", password: planted.four } }, 4))
    bash(
      root,
      "t2",
      "tail -n 1 audit.log",
      encoded({ password: planted.five, env: [{ name: "API_TOKEN", value: planted.token }], kept: "AuditKeptText" }, 5)
    )
    const bytes = folderBytes(root)
    for (const [where, secret] of Object.entries(planted)) expect(bytes.includes(secret), where).toBe(false)
    expect(bytes).toContain("tail -n 1 gateway.log")
    expect(bytes).toContain("AuditKeptText")
  })

  it("removes <private> blocks a tool printed escaped with attributes, closed or cut before their close", () => {
    const root = project()
    const planted = { json: "GhAttrPriv-94x", cut: "GhCutPriv-95x", html: "HtmlAttrPriv-56q" }
    hook(root, "SessionStart", { source: "startup" })
    bash(
      root,
      "t1",
      "gh issue view 12 --json body",
      String
        .raw`{"body":"Repro: \u003cprivate reason=\"creds\"\u003eadmin ${planted.json}\u003c/private\u003e then run"}`
    )
    // `head -c` cut the body before the block's close.
    bash(
      root,
      "t2",
      "gh issue view 13 --json body | head -c 80",
      String.raw`{"body":"Steps: \u003cprivate reason=\"creds\"\u003eadmin ${planted.cut}`
    )
    hook(root, "PostToolUse", {
      tool_name: "WebFetch",
      tool_use_id: "t3",
      tool_input: { url: "https://wiki.example.com/deploy" },
      tool_response: `<p>Notes &lt;private class="ops"&gt;${planted.html} and the rest of the page</p>`
    })
    const bytes = folderBytes(root)
    for (const [where, secret] of Object.entries(planted)) expect(bytes.includes(secret), where).toBe(false)
    expect(bytes).toContain("Repro: ")
    expect(bytes).toContain("then run")
    expect(bytes).toContain("Steps: ")
    expect(bytes).toContain("<p>Notes ")
  })

  it("masks a Kubernetes Secret's values, base64 under any key, as kubectl prints them", () => {
    const root = project()
    const b64 = (text: string) => Buffer.from(text).toString("base64")
    const planted = { url: b64("postgres://app:K8sHookPw-81@db/app"), admin: b64("K8sHookAdmin-82") }
    hook(root, "SessionStart", { source: "startup" })
    bash(
      root,
      "t1",
      "kubectl get secret db -o yaml",
      `apiVersion: v1\ndata:\n  DATABASE_URL: ${planted.url}\n  admin: ${planted.admin}\nkind: Secret\n`
    )
    bash(root, "t2", "kubectl get secret db -o json", JSON.stringify({ data: planted, kind: "Secret" }, null, 2))
    const bytes = folderBytes(root)
    for (const [where, secret] of Object.entries(planted)) expect(bytes.includes(secret), where).toBe(false)
    expect(bytes).toContain("kubectl get secret db -o yaml")
    expect(bytes).toContain("DATABASE_URL")
  })

  it("masks every value of a JSON Secret whose value holds a }, and of the annotation that repeats it escaped", () => {
    const root = project()
    const planted = { config: "K8sHookBraceHost-85", brace: "K8sHook}Brace-86", after: "K8sHookAfter-87" }
    const secret = {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "app" },
      stringData: {
        "config.json": JSON.stringify({ db: { host: planted.config } }),
        odd: planted.brace,
        admin: planted.after
      }
    }
    hook(root, "SessionStart", { source: "startup" })
    bash(root, "t1", "kubectl get secret app -o json", JSON.stringify(secret, null, 2))
    const annotated = {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { annotations: { "kubectl.kubernetes.io/last-applied-configuration": JSON.stringify(secret) } }
    }
    bash(root, "t2", "kubectl get secret app -o json", JSON.stringify(annotated))
    const bytes = folderBytes(root)
    for (const [where, value] of Object.entries(planted)) expect(bytes.includes(value), where).toBe(false)
    expect(bytes).toContain("config.json")
    expect(bytes).toContain("last-applied-configuration")
  })

  it("masks passwords in XML settings and in SQL, as a tool prints them or Claude runs them", () => {
    const root = project()
    const planted = { maven: "MvnHookPw-91", nuget: "NuGetHookPw-92", sql: "SqlHookPw-93" }
    hook(root, "SessionStart", { source: "startup" })
    bash(
      root,
      "t1",
      "cat ~/.m2/settings.xml ~/.nuget/NuGet/NuGet.Config",
      `<server>\n  <id>corp</id>\n  <password>${planted.maven}</password>\n</server>\n`
        + `<add key="ClearTextPassword" value="${planted.nuget}" />`
    )
    bash(root, "t2", `mysql -e "CREATE USER 'app'@'%' IDENTIFIED BY '${planted.sql}'"`, "")
    const bytes = folderBytes(root)
    for (const [where, secret] of Object.entries(planted)) expect(bytes.includes(secret), where).toBe(false)
    expect(bytes).toContain("<id>corp</id>")
  })

  it("masks the passwords of mongo, ldapsearch, smbclient and htpasswd command lines, in a tool's input", () => {
    const root = project()
    const planted = { mongo: "MongoHookPw-95", ldap: "LdapHookPw-96", smb: "SmbHookPw-97", htpasswd: "HtHookPw-98" }
    hook(root, "SessionStart", { source: "startup" })
    bash(root, "t1", `mongosh -u admin -p ${planted.mongo} --eval 'db.stats()'`, "{ ok: 1 }")
    bash(root, "t2", `ldapsearch -x -D cn=admin,dc=example -w ${planted.ldap} -b dc=example`, "# numEntries: 3")
    bash(root, "t3", `smbclient //nas/backup -U admin%${planted.smb} -c ls`, "  .   D   0")
    bash(root, "t4", `htpasswd -b .htpasswd admin ${planted.htpasswd}`, "Adding password for user admin")
    const bytes = folderBytes(root)
    for (const [where, secret] of Object.entries(planted)) expect(bytes.includes(secret), where).toBe(false)
    expect(bytes).toContain("ldapsearch -x -D cn=admin,dc=example -w")
  })

  it("masks keytool, zip, chpasswd, a login's stdin, net user, sqlcmd, gh and ENV passwords in a tool's input", () => {
    const root = project()
    const planted = {
      keytool: "KtHookPw-81",
      zip: "ZipHookPw-82",
      chpasswd: "ChHookPw-83",
      stdin: "StdinHookPw-84",
      net: "NetHookPw-85",
      sqlcmd: "SqlHookPw-86",
      gh: "GhHookPw-87",
      env: "EnvHookPw 88"
    }
    hook(root, "SessionStart", { source: "startup" })
    bash(root, "t1", `keytool -genkeypair -keystore app.jks -storepass ${planted.keytool} -dname CN=app`, "")
    bash(root, "t2", `zip -r -P ${planted.zip} backup.zip data/`, "  adding: data/ (stored 0%)")
    bash(root, "t3", `docker exec box sh -c "echo 'root:${planted.chpasswd}' | chpasswd"`, "")
    bash(
      root,
      "t4",
      `echo "${planted.stdin}" | docker login -u ci --password-stdin registry.example.com`,
      "Login Succeeded"
    )
    bash(root, "t5", `net user svc ${planted.net} /add`, "The command completed successfully.")
    bash(root, "t6", `sqlcmd -S db -U sa -P '${planted.sqlcmd}' -Q "select 1"`, "1")
    bash(root, "t7", `gh secret set DEPLOY_KEY --body "${planted.gh}"`, "✓ Set secret DEPLOY_KEY")
    bash(root, "t8", `printf 'FROM alpine\nENV DB_PASSWORD ${planted.env}\n' > Dockerfile`, "")
    const bytes = folderBytes(root)
    for (const [where, secret] of Object.entries(planted)) expect(bytes.includes(secret), where).toBe(false)
    expect(bytes).toContain("docker login -u ci --password-stdin registry.example.com")
  })

  it("masks the secret a secret manager's CLI printed: AWS Secrets Manager and SSM, Azure Key Vault", () => {
    const root = project()
    const planted = { aws: "AwsSmHookPw-41", ssm: "SsmHookPw-42", azure: "AzKvHookPw-43" }
    hook(root, "SessionStart", { source: "startup" })
    bash(
      root,
      "t1",
      "aws secretsmanager get-secret-value --secret-id prod/db",
      JSON.stringify({ Name: "prod/db", SecretString: JSON.stringify({ master: planted.aws }) }, null, 4)
    )
    bash(
      root,
      "t2",
      "aws ssm get-parameter --name /prod/db/master --with-decryption",
      JSON.stringify({ Parameter: { Name: "/prod/db/master", Type: "SecureString", Value: planted.ssm } }, null, 4)
    )
    bash(
      root,
      "t3",
      "az keyvault secret show --vault-name kv --name prod-db",
      JSON.stringify({ id: "https://kv.vault.azure.net/secrets/prod-db/1", name: "prod-db", value: planted.azure })
    )
    const bytes = folderBytes(root)
    for (const [where, secret] of Object.entries(planted)) expect(bytes.includes(secret), where).toBe(false)
    expect(bytes).toContain("/prod/db/master")
  })

  it("masks a presigned URL's signature, as aws s3 presign prints it", () => {
    const root = project()
    const signature = "5d41402abc4b2a76b9719d911017c592".repeat(2)
    hook(root, "SessionStart", { source: "startup" })
    bash(
      root,
      "t1",
      "aws s3 presign s3://reports/q3.pdf --expires-in 604800",
      "https://reports.s3.amazonaws.com/q3.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20261129T000000Z"
        + `&X-Amz-Expires=604800&X-Amz-SignedHeaders=host&X-Amz-Signature=${signature}`
    )
    const bytes = folderBytes(root)
    expect(bytes.includes(signature)).toBe(false)
    expect(bytes).toContain("X-Amz-Expires=604800")
  })

  it("masks a password an edit sets by a call: wp-config.php's define, a Java setter", () => {
    const root = project()
    const planted = { php: "WpHookPw-51", java: "JavaHookPw-52" }
    hook(root, "SessionStart", { source: "startup" })
    hook(root, "PostToolUse", {
      tool_name: "Edit",
      tool_use_id: "t1",
      tool_input: {
        file_path: `${root}/wp-config.php`,
        old_string: "define( 'DB_PASSWORD', 'password_here' );",
        new_string: `define( 'DB_PASSWORD', '${planted.php}' );`
      },
      tool_response: { filePath: `${root}/wp-config.php` }
    })
    hook(root, "PostToolUse", {
      tool_name: "Edit",
      tool_use_id: "t2",
      tool_input: {
        file_path: `${root}/src/Db.java`,
        old_string: "ds.setUser(\"app\");",
        new_string: `ds.setUser("app");\nds.setPassword("${planted.java}");`
      },
      tool_response: { filePath: `${root}/src/Db.java` }
    })
    const bytes = folderBytes(root)
    for (const [where, secret] of Object.entries(planted)) expect(bytes.includes(secret), where).toBe(false)
    expect(bytes).toContain("wp-config.php")
  })

  it("masks credentials outside a Kubernetes Secret: Docker auth, .npmrc _auth, Basic, npmAuthIdent, .yarnrc", () => {
    const root = project()
    const b64 = (text: string) => Buffer.from(text).toString("base64")
    const planted = {
      docker: b64("robot:DockerHookPw-71"),
      npmrc: b64("ci:NpmrcHookPw-72"),
      header: b64("api:HeaderHookPw-73"),
      // Base64 of `user:password` without a digit, after Basic in Maven's settings.
      maven: b64("hpmb:kzgWTsmY"),
      yarn: b64("ci:YarnHookPw-74"),
      // Yarn 1's .yarnrc: a key and its quoted value apart by a blank; an older npm token has no npm_ prefix.
      yarn1: "5d41402a-bc4b-2a76-b971-9d911017c592"
    }
    hook(root, "SessionStart", { source: "startup" })
    bash(
      root,
      "t1",
      "cat ~/.docker/config.json",
      JSON.stringify({ auths: { "registry.example.com": { auth: planted.docker } } }, null, "\t")
    )
    bash(root, "t2", "cat ~/.npmrc", `//registry.example.com/:_auth=${planted.npmrc}\nalways-auth=true\n`)
    bash(
      root,
      "t5",
      "cat .yarnrc.yml",
      `npmRegistries:\n  "https://npm.example.com":\n    npmAuthIdent: "${planted.yarn}"\n`
    )
    bash(
      root,
      "t6",
      "cat ~/.yarnrc",
      `email "dev@example.com"\n"//registry.npmjs.org/:_authToken" "${planted.yarn1}"\n`
    )
    bash(
      root,
      "t3",
      "curl -sv https://api.example.com/health",
      `> GET /health\n> Authorization: Basic ${planted.header}\n`
    )
    bash(
      root,
      "t4",
      "cat ~/.m2/settings.xml",
      `<property>\n  <name>Authorization</name>\n  <value>Basic ${planted.maven}</value>\n</property>`
    )
    const bytes = folderBytes(root)
    for (const [where, secret] of Object.entries(planted)) expect(bytes.includes(secret), where).toBe(false)
    expect(bytes).toContain("always-auth=true")
    expect(bytes).toContain("dev@example.com")
    expect(bytes).toContain("<name>Authorization</name>")
  })

  it("masks Rails' secret_key_base, as heroku config prints it", () => {
    const root = project()
    const secret = "8f14e45fceea167a5a36dedd4bea2543"
    hook(root, "SessionStart", { source: "startup" })
    bash(
      root,
      "t1",
      "heroku config -a shop",
      `=== shop Config Vars\nRAILS_ENV:       production\nSECRET_KEY_BASE: ${secret}`
    )
    const bytes = folderBytes(root)
    expect(bytes.includes(secret)).toBe(false)
    expect(bytes).toContain("RAILS_ENV:       production")
  })

  it("masks a password a Korean prompt gives (비번은 X야, 비밀번호를 X로 바꿔), and a key beside its id in a CSV", () => {
    const root = project()
    const secrets = ["Xq7vR2mK9pL4", "Pw9kr2QwErTy", "N8raJ4nWF0jSBwfO9sbK5oXG1kTCxgP/tcL6pYH2"]
    hook(root, "SessionStart", { source: "startup" })
    hook(root, "UserPromptSubmit", {
      prompt: `스테이징 DB 비번은 ${secrets[0]}야. password 는 ${secrets[1]} 로 바꿔줘`
    })
    bash(
      root,
      "t1",
      "cat alice_accessKeys.csv",
      `Access key ID,Secret access key\nAKIAIOSFODNN7EXAMPLE,${secrets[2]}\n`
    )
    const bytes = folderBytes(root)
    for (const secret of secrets) expect(bytes.includes(secret), secret).toBe(false)
    // The sentence around them is kept, in the UTF-8 the file holds.
    expect(bytes).toContain(Buffer.from("스테이징 DB 비번은 [secret:credential]야", "utf8").toString("latin1"))
    expect(bytes).toContain("cat alice_accessKeys.csv")
  })

  it("masks a vendor's key a tool printed alone, as echo $GROQ_API_KEY does", () => {
    const root = project()
    const key = "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"
    hook(root, "SessionStart", { source: "startup" })
    bash(root, "t1", "echo $GROQ_API_KEY", `${key}\n`)
    const bytes = folderBytes(root)
    expect(bytes.includes(key)).toBe(false)
    expect(bytes).toContain("echo $GROQ_API_KEY")
  })

  it("keeps the code after an empty password on its line, and masks the password set beside it", () => {
    const root = project()
    hook(root, "SessionStart", { source: "startup" })
    hook(root, "PostToolUse", {
      tool_name: "Edit",
      tool_use_id: "t1",
      tool_input: {
        file_path: `${root}/src/db.ts`,
        old_string: "const retries = 1",
        new_string: `const password = ""; const retries = 3 // EmptyPwKeptCode\nconst token = "EmptyHookTok-91"`
      },
      tool_response: { filePath: `${root}/src/db.ts` }
    })
    const bytes = folderBytes(root)
    expect(bytes.includes("EmptyHookTok-91")).toBe(false)
    expect(bytes).toContain("const retries = 3 // EmptyPwKeptCode")
  })

  it("keeps an auth setting naming a scheme, with a comment after it or not, and masks the password beside it", () => {
    const root = project()
    hook(root, "SessionStart", { source: "startup" })
    bash(
      root,
      "t1",
      "cat conf/proxy.xml",
      "<proxy>\n  <auth>basic</auth>\n  <user>svc</user>\n  <password>XmlAuthHookPw-61</password>\n</proxy>\n"
    )
    bash(
      root,
      "t2",
      "cat conf/proxy.yaml",
      "proxy:\n  auth: basic # YamlAuthKeptComment\n  password: YamlAuthHookPw-62 # rotated monthly\n"
    )
    const bytes = folderBytes(root)
    expect(bytes.includes("XmlAuthHookPw-61")).toBe(false)
    expect(bytes.includes("YamlAuthHookPw-62")).toBe(false)
    expect(bytes).toContain("<auth>basic</auth>")
    expect(bytes).toContain("auth: basic # YamlAuthKeptComment")
  })

  it("keeps the working directory a tool printed: PWD holding a path is not a password", () => {
    const root = project()
    hook(root, "SessionStart", { source: "startup" })
    bash(root, "t1", "echo $PWD", "/home/alice/echoed-dir\n")
    bash(root, "t2", "env | sort", "OLDPWD=/home/alice\nPASSWD=EnvHookPw-81\nPWD=/home/alice/env-dir\nSHELL=/bin/zsh\n")
    // A pod's env as kubectl prints it: each value on the line after its name.
    bash(
      root,
      "t3",
      "kubectl get pod app -o yaml",
      "    env:\n    - name: PWD\n      value: /srv/pod-dir\n    - name: DB_PASSWORD\n      value: PodEnvHookPw-83\n"
    )
    const bytes = folderBytes(root)
    expect(bytes.includes("EnvHookPw-81")).toBe(false)
    expect(bytes.includes("PodEnvHookPw-83")).toBe(false)
    expect(bytes).toContain("/home/alice/echoed-dir")
    expect(bytes).toContain("PWD=/home/alice/env-dir")
    expect(bytes).toContain("value: /srv/pod-dir")
  })

  it("masks a pod's env value after a comment or blank lines, or before its name; keeps paths, plain values", () => {
    const root = project()
    hook(root, "SessionStart", { source: "startup" })
    bash(
      root,
      "t1",
      "cat k8s/deployment.yaml",
      "        env:\n        - name: DB_PASSWORD # the app's\n          value: CommentEnvHookPw-71\n"
        + "        - name: PWD # where it runs\n          value: /srv/comment-dir\n"
        + "        - name: LOG_LEVEL # how much\n          value: debug-kept-71\n"
        + "        - name: SMTP_PASSWORD\n          value: correct WordsEnvHook staple-77\n"
        + "        - name: API_TOKEN\n\n          # rotated monthly\n          value: GapEnvHookTok-72\n"
        + "        - name: PWD\n\n          value: /srv/gap-dir\n"
    )
    // The value before the name: a hand-written manifest, and a task definition's JSON as a tool printed it.
    bash(
      root,
      "t2",
      "cat k8s/worker.yaml",
      "        env:\n        - value: ValueFirstHookPw-73\n          name: DB_PASSWORD\n"
        + "        - value: /srv/value-first-dir\n          name: PWD\n"
    )
    bash(
      root,
      "t3",
      "jq .containerDefinitions[0].environment task.json",
      JSON.stringify(
        [{ value: "ValueFirstJsonTok-74", name: "API_TOKEN" }, { value: "info", name: "LOG_LEVEL" }],
        null,
        2
      )
    )
    const bytes = folderBytes(root)
    expect(bytes.includes("CommentEnvHookPw-71")).toBe(false)
    expect(bytes.includes("WordsEnvHook")).toBe(false)
    expect(bytes.includes("staple-77")).toBe(false)
    expect(bytes.includes("GapEnvHookTok-72")).toBe(false)
    expect(bytes).toContain("value: /srv/gap-dir")
    expect(bytes.includes("ValueFirstHookPw-73")).toBe(false)
    expect(bytes.includes("ValueFirstJsonTok-74")).toBe(false)
    expect(bytes).toContain("value: /srv/value-first-dir")
    expect(bytes).toContain("value: /srv/comment-dir")
    expect(bytes).toContain("value: debug-kept-71")
  })

  it("masks a pod's env value in a YAML file a JSON string holds, as kubectl prints a ConfigMap's data", () => {
    const root = project()
    hook(root, "SessionStart", { source: "startup" })
    const manifest = "env:\n- name: DB_PASSWORD # the app's\n  value: EscapedEnvHookPw-75\n"
      + "- value: EscapedEnvHookTok-76\n\n  name: API_TOKEN\n- name: PWD\n  value: /srv/escaped-dir\n"
    bash(
      root,
      "t1",
      "kubectl get configmap app -o json",
      JSON.stringify({ kind: "ConfigMap", data: { "deployment.yaml": manifest } }, null, 2)
    )
    // Tab-indented JSON a tool quoted as a string: its tabs are escaped too.
    bash(
      root,
      "t2",
      "jq -Rs . task.json",
      JSON.stringify(JSON.stringify([{ name: "DB_PASSWORD", value: "EscapedTabsHookPw-78" }], null, "\t"))
    )
    const bytes = folderBytes(root)
    expect(bytes.includes("EscapedEnvHookPw-75")).toBe(false)
    expect(bytes.includes("EscapedTabsHookPw-78")).toBe(false)
    expect(bytes.includes("EscapedEnvHookTok-76")).toBe(false)
    expect(bytes).toContain("value: /srv/escaped-dir")
  })

  it("masks an env entry read whole: a block scalar, another key between, Helm, Terraform; keeps plain values", () => {
    const root = project()
    hook(root, "SessionStart", { source: "startup" })
    bash(
      root,
      "t1",
      "cat k8s/deployment.yaml",
      "        env:\n        - name: DB_PASSWORD\n          value: |\n            BlockEnvHookPw-91\n"
        + "        - name: API_TOKEN\n          # rotated\n          type: secret\n"
        + "          value: 'it''s-OtherKeyHookTok-92'\n"
        + "        - name: LOG_LEVEL\n          type: plain\n          value: debug-kept-91\n"
    )
    bash(
      root,
      "t2",
      "jq .containerDefinitions[0].environment task.json",
      JSON.stringify(
        [
          { name: "DB_PASSWORD", type: "plain", value: "OtherKeyJsonHookPw-93" },
          { value: "ValueFirstOtherHookTok-94", type: "plain", name: "API_TOKEN" },
          { name: "LOG_LEVEL", type: "plain", value: "info-kept-93" }
        ],
        null,
        2
      )
    )
    // The secret in the command itself: Helm's --set.
    bash(
      root,
      "t3",
      "helm upgrade app ./chart --set env[0].name=DB_PASSWORD,env[0].value=HelmHookPw-95 "
        + "--set env[1].name=LOG_LEVEL,env[1].value=helm-kept-95",
      "Release \"app\" has been upgraded.\n"
    )
    bash(root, "t4", "cat main.tf", "env {\n  value = \"TerraformHookPw-96\"\n  name  = \"DB_PASSWORD\"\n}\n")
    const bytes = folderBytes(root)
    for (
      const secret of [
        "BlockEnvHookPw-91",
        "OtherKeyHookTok-92",
        "OtherKeyJsonHookPw-93",
        "ValueFirstOtherHookTok-94",
        "HelmHookPw-95",
        "TerraformHookPw-96"
      ]
    ) {
      expect(bytes.includes(secret), secret).toBe(false)
    }
    for (const kept of ["debug-kept-91", "info-kept-93", "helm-kept-95", "helm upgrade app ./chart"]) {
      expect(bytes, kept).toContain(kept)
    }
  })

  it("masks the output of a command that prints a secret alone: secret managers as text, an echoed variable", () => {
    const root = project()
    hook(root, "SessionStart", { source: "startup" })
    // Each prints the secret with nothing around it that any rule on the text could know it by.
    const printed = [
      ["gcloud secrets versions access latest --secret=db-password", "hunter2-correct-horse"],
      ["vault kv get -field=password secret/prod/db", "Tr0ub4dor-and-3"],
      ["kubectl get secret db -o jsonpath='{.data.password}' | base64 -d", "plain-old-passphrase"],
      ["aws secretsmanager get-secret-value --secret-id prod/db --query SecretString --output text", "s3cr3t-value-x"],
      ["op read op://Private/db/password", "battery-staple-99"],
      ["security find-generic-password -s db -w", "keychain-pass-42"],
      ["printenv DB_PASSWORD", "env-pass-from-printenv"],
      ["echo \"pass: ${DATABASE_PASSWORD}\"", "pass: echoed-pass-value"]
    ] as const
    printed.forEach(([command, output], at) => bash(root, `t${at}`, command, `${output}\n`))
    hook(root, "PostToolUseFailure", {
      tool_name: "Bash",
      tool_use_id: "failed",
      tool_input: { command: "gcloud secrets versions access 2 --secret=api | false" },
      error: "Exit code 1\nfailed-run-secret-value"
    })
    const bytes = folderBytes(root)
    for (const [command, output] of printed) {
      expect(bytes.includes(output), command).toBe(false)
      expect(bytes, command).toContain(command.split(" ")[0])
    }
    expect(bytes.includes("failed-run-secret-value")).toBe(false)
    // Commands that print no secret keep their output.
    bash(root, "plain", "echo $HOME && gcloud config list", "account = me@example.com\n")
    expect(folderBytes(root)).toContain("account = me@example.com")
  })
})
