package main

// ingest --embedding default is chroma-go's ONNX function, which package
// chromaembed registers.
import _ "github.com/chromafs/chromafs/chromastore/chromaembed"
