// The file layouts considered for the outputs' DEFLATE (docs/performance.md,
// "libdeflate and the file layout"), one core each, over a file of records:
// zlib 6 as one stream, libdeflate as one member, as members of 64 KiB to
// 1 MiB ended after a record, as files of 2,000 records (Mixpanel's rotation),
// inflating again (what re-encoding a file costs first), and the CRC-32s.
//
//   cc -O2 -o /tmp/deflate-layouts scripts/deflate-layouts.c Sources/CCRC32/crc32_pclmul.c \
//      -ISources/CCRC32/include -ldeflate -lz
//   sluice generate --events 200000 --seed 1 > events.ndjson && /tmp/deflate-layouts events.ndjson
#include <libdeflate.h>
#include <zlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <stdint.h>
uint32_t sluice_crc32(uint32_t crc, const uint8_t *buf, size_t len);
static double cpu(void){struct timespec t;clock_gettime(CLOCK_PROCESS_CPUTIME_ID,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static unsigned char *in,*out; static size_t n;
static size_t zlib_whole(int level){z_stream s;memset(&s,0,sizeof s);deflateInit2(&s,level,Z_DEFLATED,31,8,Z_DEFAULT_STRATEGY);
 s.next_in=in;s.avail_in=n;s.next_out=out;s.avail_out=n+n/8+1024;deflate(&s,Z_FINISH);size_t r=s.total_out;deflateEnd(&s);return r;}
// members of at most `block` bytes, each ended after its last newline (a record longer than a block: the block grows)
static size_t ld_members(struct libdeflate_compressor*c,size_t block,size_t *count){size_t pos=0,total=0;*count=0;
 while(pos<n){size_t len=n-pos;if(len>block){len=block;while(len>0&&in[pos+len-1]!='\n')len--; if(len==0){len=block;while(pos+len<n&&in[pos+len-1]!='\n')len++;}}
  total+=18+libdeflate_deflate_compress(c,in+pos,len,out,n+n/8+1024);pos+=len;(*count)++;}
 return total;}
// files of at most 2000 lines and 2,000,000 bytes (Mixpanel's default rotation), each one whole member
static size_t ld_files(struct libdeflate_compressor*c,size_t *count){size_t pos=0,total=0;*count=0;
 while(pos<n){size_t len=0,lines=0;while(pos+len<n&&lines<2000){size_t e=pos+len;while(e<n&&in[e]!='\n')e++;e++;if(e-pos>2000000&&lines>0)break;len=e-pos;lines++;}
  total+=18+libdeflate_deflate_compress(c,in+pos,len,out,n+n/8+1024);pos+=len;(*count)++;}
 return total;}
int main(int argc,char**argv){FILE*f=fopen(argv[1],"rb");fseek(f,0,SEEK_END);n=ftell(f);fseek(f,0,SEEK_SET);in=malloc(n);fread(in,1,n,f);fclose(f);out=malloc(n+n/8+1024);
 double t;size_t r,k;
 printf("input %zu bytes\n",n);
 t=cpu();r=zlib_whole(6);printf("zlib 6 one stream:           %.3f s  %zu bytes\n",cpu()-t,r);
 int levels[]={1,4,5,6,7,9};
 for(int li=0;li<6;li++){int L=levels[li];struct libdeflate_compressor*c=libdeflate_alloc_compressor(L);
  t=cpu();r=libdeflate_gzip_compress(c,in,n,out,n+n/8+1024);printf("libdeflate %d whole:           %.3f s  %zu bytes\n",L,cpu()-t,r);
  size_t blocks[]={64<<10,256<<10,1<<20};
  for(int b=0;b<3;b++){t=cpu();r=ld_members(c,blocks[b],&k);printf("libdeflate %d members %4zu KiB: %.3f s  %zu bytes (%zu members)\n",L,blocks[b]>>10,cpu()-t,r,k);}
  t=cpu();r=ld_files(c,&k);printf("libdeflate %d 2000-line files:  %.3f s  %zu bytes (%zu files)\n",L,cpu()-t,r,k);
  libdeflate_free_compressor(c);}
 // re-encoding: blocks of 256 KiB, then each 2000-line file inflated (zlib) and deflated whole again
 { struct libdeflate_compressor*c=libdeflate_alloc_compressor(6); struct libdeflate_decompressor*d=libdeflate_alloc_decompressor();
   unsigned char*z=malloc(n+n/8+1024); size_t zl=libdeflate_gzip_compress(c,in,n,z,n+n/8+1024);
   unsigned char*back=malloc(n); size_t got;
   t=cpu(); z_stream s;memset(&s,0,sizeof s);inflateInit2(&s,31);s.next_in=z;s.avail_in=zl;s.next_out=back;s.avail_out=n;inflate(&s,Z_FINISH);inflateEnd(&s);
   printf("zlib inflate of the whole:     %.3f s\n",cpu()-t);
   t=cpu(); libdeflate_gzip_decompress(d,z,zl,back,n,&got); printf("libdeflate inflate of whole:   %.3f s\n",cpu()-t);
 }
 // CRC-32
 t=cpu();unsigned long z=crc32(0,in,n);printf("zlib crc32:          %.3f s (%lx)\n",cpu()-t,z);
 t=cpu();unsigned int l=libdeflate_crc32(0,in,n);printf("libdeflate_crc32:    %.3f s (%x)\n",cpu()-t,l);
 t=cpu();uint32_t p=sluice_crc32(0,in,n);printf("sluice_crc32:        %.3f s (%x)\n",cpu()-t,p);
 return 0;}
