// Source maps exist so a crash points at src/ (its file and line). Mappings into node_modules would triple the
// package for no such benefit, so they are removed (decode VLQ, drop, re-encode), and so are
// the names (a crash's frames are placed by file and line; the names, most of a map's size once
// the vendor mappings are gone, only renamed minified identifiers), and every segment that
// stays on the source line of the one before. The maps serve a checkout's build (`--debug`);
// the package leaves them out (package.json "files", docs/development.md).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const INDEX = new Map([...B64].map((c, i) => [c, i]));

function decode(segment) {
  const out = [];
  let value = 0;
  let shift = 0;
  for (const ch of segment) {
    const digit = INDEX.get(ch);
    value += (digit & 31) << shift;
    if (digit & 32) shift += 5;
    else {
      out.push(value & 1 ? -(value >>> 1) : value >>> 1);
      value = 0;
      shift = 0;
    }
  }
  return out;
}

function encode(values) {
  let s = '';
  for (const v of values) {
    let vlq = v < 0 ? (-v << 1) | 1 : v << 1;
    do {
      let digit = vlq & 31;
      vlq >>>= 5;
      if (vlq > 0) digit |= 32;
      s += B64[digit];
    } while (vlq > 0);
  }
  return s;
}

export function stripVendorMappings(map) {
  const keep = map.sources.map((s) => !s.includes('node_modules/'));
  const newIndex = [];
  let n = 0;
  for (const k of keep) newIndex.push(k ? n++ : -1);
  // Absolute state across the whole mappings string (source, line, column); column resets per line.
  let src = 0,
    srcLine = 0,
    srcCol = 0;
  let oSrc = 0,
    oSrcLine = 0,
    oSrcCol = 0;
  const lines = map.mappings.split(';').map((line) => {
    let col = 0,
      oCol = 0;
    const kept = [];
    for (const seg of line.split(',')) {
      if (!seg) continue;
      const f = decode(seg);
      col += f[0];
      if (f.length === 1) continue; // a segment without a source maps nothing useful
      src += f[1];
      srcLine += f[2];
      srcCol += f[3];
      if (!keep[src]) continue;
      // One segment per source line it enters: a crash is placed on its line (the column, within
      // that line, to the statement's start), at about half the mappings' size.
      if (kept.length > 0 && newIndex[src] === oSrc && srcLine === oSrcLine) continue;
      const fields = [col - oCol, newIndex[src] - oSrc, srcLine - oSrcLine, srcCol - oSrcCol];
      oCol = col;
      oSrc = newIndex[src];
      oSrcLine = srcLine;
      oSrcCol = srcCol;
      kept.push(encode(fields));
    }
    return kept.join(',');
  });
  return {
    ...map,
    sources: map.sources.filter((_, i) => keep[i]),
    names: [],
    mappings: lines.join(';'),
    ...(map.sourcesContent ? { sourcesContent: map.sourcesContent.filter((_, i) => keep[i]) } : {}),
  };
}

export function stripDir(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) stripDir(path);
    else if (entry.name.endsWith('.map'))
      writeFileSync(path, JSON.stringify(stripVendorMappings(JSON.parse(readFileSync(path, 'utf8')))));
  }
}
