module reelflow.example/go-http

go 1.23
