#!/usr/bin/env node
import { createRequire as __createRequire } from "node:module";
import { fileURLToPath as __fileURLToPath } from "node:url";
import { dirname as __dirnameOf } from "node:path";
const require = __createRequire(import.meta.url);
const __filename = __fileURLToPath(import.meta.url);
const __dirname = __dirnameOf(__filename);
import"./chunks/chunk-2FHXSUGC.mjs";import*as p from"node:module";import{fileURLToPath as h}from"node:url";var[t=0,m=0]=process.versions.node.split(".").map(Number),d=t>22||t===22&&m>=19,i="RALPH_MEM_RELAUNCHED",u=async()=>{let{existsSync:e}=await import("node:fs"),{join:o}=await import("node:path"),{homedir:s}=await import("node:os"),n=process.env.RALPH_MEM_NODE_HOME||o(s(),".cache","ralph-mem","node24"),r=o(n,"node_modules","node","bin",process.platform==="win32"?"node.exe":"node");return e(r)&&r!==process.execPath?r:void 0},c=async e=>{if(process.env[i]==="1")return;let o=await u();if(o===void 0)return;let{spawnSync:s}=await import("node:child_process"),n=s(o,[e,...process.argv.slice(2)],{stdio:"inherit",env:{...process.env,[i]:"1"}});return n.error===void 0?n.status??1:void 0},a=()=>`ralph-mem needs Node.js 22.19 or newer; the node found is ${process.versions.node} (${process.execPath}). Fix: run \`bash scripts/setup.sh\` in the ralph-mem clone (it installs Node 24 into ~/.cache/ralph-mem/node24, which ralph-mem then uses by itself), or put Node 22.19+ first on the PATH that Claude Code starts with.`;var l=process.ppid;if(!d){let e=await c(h(import.meta.url));e===void 0&&process.stderr.write(`${a()}
`),process.exit(e??1)}p.enableCompileCache?.();process.argv.length===3&&process.argv[2]==="mcp"?await import("./chunks/mcp-loader-DN4HKRL7.mjs").then(({serveMemory:e})=>e({parentPid:l})):await import("./chunks/main-UTNYROCM.mjs");
