// pprof-read.sh's reader: a profile.proto file, decoded by the npm package
// pprof-format (Datadog's, independent of our encoder), printed as
//   type TYPE UNIT        per sample type
//   period-type TYPE UNIT PERIOD
//   strings N FIRST       the string table's size, and its [0] quoted
//   outer;...;inner V     per sample, its frames' function names (the
//                         first line of each location), outermost first
const { Profile } = require('pprof-format');
const fs = require('fs');
const p = Profile.decode(fs.readFileSync(process.argv[2]));
const S = p.stringTable.strings;
for (const t of p.sampleType)
  console.log(`type ${S[Number(t.type)]} ${S[Number(t.unit)]}`);
if (p.periodType)
  console.log(`period-type ${S[Number(p.periodType.type)]} ${S[Number(p.periodType.unit)]} ${p.period}`);
console.log(`strings ${S.length} ${JSON.stringify(S[0])}`);
const fn = new Map(p.function.map(f => [String(f.id), S[Number(f.name)]]));
const loc = new Map(p.location.map(l => [String(l.id),
  l.line.length ? fn.get(String(l.line[0].functionId)) : '?']));
for (const s of p.sample)
  console.log(s.locationId.map(id => loc.get(String(id))).reverse().join(';') +
              ' ' + s.value.map(String).join(','));
