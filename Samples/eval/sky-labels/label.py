# Sky labels for opencv-doc photos, made by hand-chosen per-photo colour rules
# inside hand-drawn regions, then checked by eye on overlays (label-*.png).
import cv2, numpy as np
D='/usr/share/doc/opencv-doc/examples/data/'
def lab(img):
    l=cv2.cvtColor(img.astype(np.float32)/255,cv2.COLOR_BGR2Lab); return l[...,0],l[...,1],l[...,2]
def top_connected(mask):
    n,cc=cv2.connectedComponents(mask.astype(np.uint8),connectivity=4)
    keep=set(cc[0][mask[0]>0].tolist())-{0}
    return np.isin(cc,list(keep))
def fill_small_holes(mask, maxarea):
    inv=(~mask).astype(np.uint8); n,cc,st,_=cv2.connectedComponentsWithStats(inv,connectivity=4)
    out=mask.copy()
    for k in range(1,n):
        if st[k,4]<=maxarea: out[cc==k]=True
    return out
labels={}
# home: blue sky and white clouds above a cream building (b* > 12); birds are small holes (kept as sky, as a labeller would)
img=cv2.imread(D+'home.jpg'); L,A,B=lab(img)
building=np.zeros(L.shape,np.uint8)
cv2.fillPoly(building,[np.array([(88,384),(88,340),(115,325),(118,280),(135,262),(150,248),(158,232),(168,250),(178,268),(200,262),(250,222),(250,170),(262,150),(283,130),(300,150),(327,172),(325,200),(350,200),(352,170),(365,130),(362,100),(370,45),(400,25),(440,8),(460,10),(495,40),(512,40),(512,384)],np.int32)],1)
# inside the hand-drawn building outline only deep blue is sky
m=np.where(building>0,B<-15,(B<10)&(L>25)); m=top_connected(m); m=fill_small_holes(m,60); labels['home']=(img,m)
# leuven A/B: overcast sky, bright and colourless, joined to the top edge
for f in ['leuvenA','leuvenB']:
    img=cv2.imread(D+f+'.jpg'); L,A,B=lab(img); C=np.hypot(A,B)
    m=top_connected((L>72)&(C<9)); m=fill_small_holes(m,40); labels[f]=(img,m)
# building: pale blue sky left of the white building, bluish (b* < -4)
img=cv2.imread(D+'building.jpg'); L,A,B=lab(img)
m=(B<-4)&(L>55); m[:, int(0.36*img.shape[1]):]=False
n,cc,st,_=cv2.connectedComponentsWithStats(m.astype(np.uint8),connectivity=4)
m=np.isin(cc,[k for k in range(1,n) if st[k,4]>=200]); m=fill_small_holes(m,30); labels['building']=(img,m)
for k,(img,m) in labels.items():
    cv2.imwrite(f'{k}-sky.png',(m*255).astype(np.uint8))
    o=img.copy(); o[m]=(0.5*o[m]+0.5*np.array([255,0,255])).astype(np.uint8)
    cv2.imwrite(f'label-{k}.png',o)
    print(k, m.mean())
