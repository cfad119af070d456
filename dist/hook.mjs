#!/usr/bin/env node
import { createRequire as __createRequire } from "node:module";
import { fileURLToPath as __fileURLToPath } from "node:url";
import { dirname as __dirnameOf } from "node:path";
const require = __createRequire(import.meta.url);
const __filename = __fileURLToPath(import.meta.url);
const __dirname = __dirnameOf(__filename);
import*as s from"node:fs";import*as f from"node:module";var i=64*1024*1024,c=()=>{let r=[],o=Buffer.alloc(65536),t=0;for(;;){let e;try{e=s.readSync(0,o,0,o.length,null)}catch(n){if(n.code==="EAGAIN")continue;if(n.code==="EOF")break;throw n}if(e===0)break;if(t+=e,t>i)return;r.push(Buffer.from(o.subarray(0,e)))}return Buffer.concat(r).toString("utf8")},[a=0,u=0]=process.versions.node.split(".").map(Number);if(a>22||a===22&&u>=19){f.enableCompileCache?.();let{main:r}=await import("./chunks/hook-main-MXFEVT53.mjs");await r(process.argv[2],c)}process.exit(0);
