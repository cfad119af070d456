#!/usr/bin/env node
import { createRequire as __createRequire } from "node:module";
import { fileURLToPath as __fileURLToPath } from "node:url";
import { dirname as __dirnameOf } from "node:path";
const require = __createRequire(import.meta.url);
const __filename = __fileURLToPath(import.meta.url);
const __dirname = __dirnameOf(__filename);
import{Bd as c,Fd as g,Gd as h,Pd as y,Ud as k,Vd as r,Xd as E,Yd as v,zd as u}from"./chunks/chunk-LHSNR7XJ.mjs";import{workerData as S}from"node:worker_threads";var b=3e4,{path:j,projections:q,after:A,until:w,port:d,signal:m}=S,D=()=>{g(import.meta.url);let e=h(j,{readonly:!0,fileMustExist:!0});try{let F=q.map(f=>k.find(n=>n.name===f)),a=new Map,i=[],t=[],l=0,p=()=>{r(d,m,{kind:"changes",events:l,statements:i,changes:t}),i=[],t=[],l=0};for(let f of v(y(e,u),A,{until:w})){l++;let n=E(f);if(n!==void 0){for(let M of F)for(let o of M.apply(n)){let s=a.get(o.sql);s===void 0&&(s=a.size,a.set(o.sql,s),i.push(o.sql)),t.push(s,o.params.length,...o.params)}t.length>=b&&p()}}p(),r(d,m,{kind:"done"})}finally{e.close()}};try{D()}catch(e){r(d,m,{kind:"failed",position:e instanceof c?e.position:null,reason:e instanceof c?e.reason:e instanceof Error?e.message:String(e)})}
