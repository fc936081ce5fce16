# Parameter counts of relay.testing.resnet networks, worked from resnet.py by
# hand (element counts per layer), the oracle for test_resnet.cpp. Run with
# /usr/bin/python3; prints (num_layers, (total, batch-norm elements)).
def count(num_layers, image=(3,224,224), classes=1000):
    h = image[1]
    if h <= 28:
        if (num_layers-2)%9==0 and num_layers>=164: per=(num_layers-2)//9; fl=[16,64,128,256]; bott=True
        elif (num_layers-2)%6==0 and num_layers<164: per=(num_layers-2)//6; fl=[16,16,32,64]; bott=False
        units=[per]*3
    else:
        fl=[64,256,512,1024,2048] if num_layers>=50 else [64,64,128,256,512]; bott = num_layers>=50
        units={18:[2,2,2,2],34:[3,4,6,3],50:[3,4,6,3],101:[3,4,23,3],152:[3,8,36,3],200:[3,24,36,3],269:[3,30,48,8]}[num_layers]
    c_in=image[0]; tot=4*c_in; stats=4*c_in
    k0 = 3 if h<=32 else 7
    tot += fl[0]*c_in*k0*k0; c=fl[0]
    if h>32: tot+=4*c; stats+=4*c
    for i,u in enumerate(units):
        f=fl[i+1]
        for j in range(u):
            tot+=4*c; stats+=4*c
            if bott:
                b=f//4
                tot+=b*c; tot+=4*b; stats+=4*b; tot+=b*b*9; tot+=4*b; stats+=4*b; tot+=f*b
            else:
                tot+=f*c*9+4*f+f*f*9; stats+=4*f
            if j==0: tot+=f*c
            c=f
    tot+=4*c; stats+=4*c
    tot+=classes*c+classes
    return tot, stats
for n in [18,34,50,101,152]:
    print(n, count(n))
print(8, count(8,(3,28,28),10))
