#!/usr/bin/env python3
"""Lists the `unsafe` blocks of ecs-core (outside test modules) that an lcov
report never reached. Usage: scripts/unsafe-coverage (runs cargo-llvm-cov)."""
import re,glob,os,sys
da={}
cur=None
for line in open(sys.argv[1]):
    line=line.strip()
    if line.startswith('SF:'):
        cur=line[3:]; da.setdefault(cur,{})
    elif line.startswith('DA:'):
        l,c=line[3:].split(',')[:2]
        da[cur][int(l)]=max(da[cur].get(int(l),0),int(c))
total=0; bad=[]
for f in glob.glob('ecs-core/src/**/*.rs',recursive=True):
    path=os.path.abspath(f)
    d=da.get(path,{})
    lines=open(f).read().split('\n')
    in_test=False
    for i,l in enumerate(lines,1):
        if '#[cfg(test)]' in l or '#[cfg(all(test, loom))]' in l: in_test=True
        if in_test: continue
        if re.search(r'unsafe \{',l):
            total+=1
            hits=[d.get(j) for j in range(i,i+4) if d.get(j) is not None]
            if not hits or max(hits)==0:
                bad.append((f,i,l.strip(),hits))
print("unsafe blocks:",total,"not reached:",len(bad))
for b in bad: print(b)
sys.exit(1 if bad else 0)
