#!/usr/bin/env node
import { createRequire as __createRequire } from "node:module";
import { fileURLToPath as __fileURLToPath } from "node:url";
import { dirname as __dirnameOf } from "node:path";
const require = __createRequire(import.meta.url);
const __filename = __fileURLToPath(import.meta.url);
const __dirname = __dirnameOf(__filename);
import{c as a,d as c}from"./chunk-MDO22B4G.mjs";import{I as f,e as d}from"./chunk-EFSBAH46.mjs";import{Va as s,ac as r,jb as i}from"./chunk-6H5PNQZ3.mjs";import"./chunk-4CM3ROMR.mjs";import{spawn as p}from"node:child_process";import{join as u}from"node:path";import{fileURLToPath as l}from"node:url";var g=(t,{databasePath:n})=>{if(t!=="SessionEnd")return;let e=u(l(new URL(".",import.meta.url)),"..","ralph-mem.mjs"),o=p(process.execPath,[e,"backup","--if-due","--db",n],{detached:!0,stdio:"ignore"});o.on("error",()=>{}),o.unref()},k={afterRecorded:g,stop:({memory:t,input:n,settings:e,env:o})=>i(s(()=>import("./src-HDVFIFHX.mjs")),({continueAtStop:m})=>m(t,{sessionId:n.session_id,lastAssistantMessage:n.last_assistant_message??"",env:o,now:Date.now(),injectionBudgetTokens:f(e)}))},y=async(t,n)=>{if(!a(t))return;d(import.meta.url);let e;try{e=n()}catch{e=void 0}let o=await r(c(t,e,{env:process.env,cwd:process.cwd()},k));o!==void 0&&process.stdout.write(`${JSON.stringify(o)}
`)};export{y as main};
