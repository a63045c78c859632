// Source maps exist so a crash points at src/. Mappings into node_modules would triple the
// package for no such benefit, so they are removed (decode VLQ, drop, re-encode), and so are
// the names only those mappings used (most of a map's size once its mappings are gone).
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
  // Absolute state across the whole mappings string (source, line, column, name); column resets per line.
  let src = 0,
    srcLine = 0,
    srcCol = 0,
    name = 0;
  let oSrc = 0,
    oSrcLine = 0,
    oSrcCol = 0,
    oName = 0;
  const names = [];
  const newName = new Map(); // old name index -> index in `names`
  const nameIndex = (old) => {
    if (!newName.has(old)) newName.set(old, names.push(map.names[old]) - 1);
    return newName.get(old);
  };
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
      if (f.length > 4) name += f[4];
      if (!keep[src]) continue;
      const fields = [col - oCol, newIndex[src] - oSrc, srcLine - oSrcLine, srcCol - oSrcCol];
      oCol = col;
      oSrc = newIndex[src];
      oSrcLine = srcLine;
      oSrcCol = srcCol;
      if (f.length > 4) {
        const keptName = nameIndex(name);
        fields.push(keptName - oName);
        oName = keptName;
      }
      kept.push(encode(fields));
    }
    return kept.join(',');
  });
  return {
    ...map,
    sources: map.sources.filter((_, i) => keep[i]),
    names,
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
